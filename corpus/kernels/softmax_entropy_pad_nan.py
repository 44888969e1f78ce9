# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# Per-row entropy of a softmax distribution, H[r] = -sum_c p[r, c] * log p[r, c] with p = softmax(x[r])
# (a policy's entropy bonus, an attention-entropy monitor), one program per row holding the row in one
# block of next_power_of_2(cols) lanes.  The padding lanes load -inf, which is right for the maximum
# and the normaliser (exp(-inf) = 0), and the kernel computes log p in the log domain,
# logp = (x - m) - log(s), p = exp(logp), then sums p * logp over the whole block.  In a padding lane
# logp = -inf and p = exp(-inf) = 0.0, and 0.0 * -inf is NaN: the product needs a tl.where on the
# mask, not the "weight is zero anyway" argument.  At cols=512 (a power of two, no padding lane) every
# row matches to a few ULP; at the declared cols=1000 (BLOCK 1024, 24 padding lanes) every row's
# entropy is NaN (48 of 48) where the reference is finite (3.0..5.6).  The NaN is computed from masked
# in-bounds lanes, not read from memory: no access is out of bounds and every row is written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(rows=48, cols=512), dict(rows=48, cols=1000)]


@triton.jit
def softmax_entropy(x_ptr, out_ptr, cols, sxr, sxc, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * sxr + c * sxc, mask=c < cols, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    logp = (x - m) - tl.log(s)
    p = tl.exp(logp)
    h = -tl.sum(p * logp, axis=0)
    tl.store(out_ptr + r, h)


def make_inputs(device: str, seed: int = 0, rows: int = 48, cols: int = 1000) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * 2.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    softmax_entropy[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    return -(torch.softmax(xf, dim=1) * torch.log_softmax(xf, dim=1)).sum(dim=1)
