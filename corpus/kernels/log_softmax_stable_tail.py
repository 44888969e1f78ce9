# kdiag corpus kernel — expected: verdict=pass, category=none
# A row log-softmax, out = x - logsumexp(x) per row, as torch.log_softmax(x, dim=1) computes it, for
# rows wider than one block.  One program per row makes two passes over chunks of 256 columns: the
# first keeps a running maximum m and a running sum s of exp(x - m), rescaling s by exp(m_old - m_new)
# whenever the maximum rises; the second writes (x - m) - log(s).  The column tail (1000 and 3000 are
# not multiples of 256) loads -inf, which never raises the maximum and adds exp(-inf) = 0 to the sum,
# and is masked on the store.  The logits are scaled to ~30 (rows whose maxima reach ~100), so a
# version without the maximum would overflow exp; this one stays finite everywhere, and the log of a
# probability that underflows is never taken (the output is formed in the log domain).  x's and
# out's strides are honoured; the arithmetic is float32.  Against the reference only the order of
# the additions in s differs: a few ULP, within the default float32 tolerance.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=32, cols=1000, scale=30.0), dict(rows=8, cols=3000, scale=30.0)]


@triton.jit
def log_softmax_rows(x_ptr, out_ptr, cols, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full((), float("-inf"), dtype=tl.float32)
    s = tl.zeros((), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        c = c0 + offs
        x = tl.load(x_ptr + r * sxr + c * sxc, mask=c < cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    log_s = tl.log(s)
    for c0 in range(0, cols, BLOCK):
        c = c0 + offs
        cm = c < cols
        x = tl.load(x_ptr + r * sxr + c * sxc, mask=cm, other=0.0).to(tl.float32)
        tl.store(out_ptr + r * sor + c * soc, ((x - m) - log_s).to(out_ptr.dtype.element_ty), mask=cm)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 1000, scale: float = 30.0) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * scale).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    log_softmax_rows[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(x.float(), dim=1).to(x.dtype)
