# kdiag corpus kernel — expected: verdict=pass, category=none
# A numerically stable row logsumexp over rows much longer than one block (cols=5000 and 3001), in one
# pass: each program walks its row in chunks of 512 and keeps a running maximum m and a running sum s
# of exp(x - m); when a chunk raises the maximum, s is rescaled by exp(m_old - m_new) before the
# chunk's terms are added, and the result is m + log(s).  The masked tail lanes load -inf (exp gives
# 0, never a maximum); every chunk holds at least one real column, so m is finite after the first
# chunk and exp(-inf - m) = 0 starts s cleanly.  The declared logits reach |x| ~ 200 (scale=50), where
# exp without the shift overflows float32; here every exponent is <= 0.  All in float32, both strides
# honoured; the difference from torch.logsumexp is the order of the additions (a few ULP).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 512
SIZES = [dict(rows=16, cols=5000, scale=50.0), dict(rows=24, cols=3001, scale=1.0)]


@triton.jit
def lse_online(x_ptr, out_ptr, cols, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    s = 0.0
    for c0 in range(0, cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    tl.store(out_ptr + row, (m + tl.log(s)).to(out_ptr.dtype.element_ty))


def make_inputs(device: str, seed: int = 0, rows: int = 16, cols: int = 5000, scale: float = 50.0) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * scale).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    lse_online[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(x.to(torch.float32), dim=1).to(x.dtype)
