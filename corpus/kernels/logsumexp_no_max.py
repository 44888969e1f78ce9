# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# A row logsumexp computed literally as log(sum(exp(x))), without the max shift
# (m + log(sum(exp(x - m)))).  For unit-scale logits (scale=1) it matches torch.logsumexp to a few
# ULP.  The contract includes logits of scale 40 (as unscaled attention scores or large-vocabulary
# logits reach): there exp overflows float32 above ~88.7, the row sum is +Inf and the kernel
# returns +Inf for every row, where the reference is finite (105 to 183).  Nothing is out of
# bounds and no index is wrong.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=64, cols=256, scale=1.0), dict(rows=64, cols=1000, scale=40.0)]


@triton.jit
def logsumexp(x_ptr, out_ptr, cols, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_r + offs * stride_c, mask=offs < cols, other=-float("inf"))
        acc += tl.exp(x)  # bug: no running max subtracted
    tl.store(out_ptr + row, tl.log(tl.sum(acc, axis=0)))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256, scale: float = 1.0) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * scale).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    logsumexp[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(x, dim=1)
