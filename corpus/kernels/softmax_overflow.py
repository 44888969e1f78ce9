# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# A row softmax computed as exp(x) / sum(exp(x)) without subtracting the row maximum first.  For
# logits of moderate size (scale=1) it matches torch.softmax; for large logits (scale=50, as
# unscaled attention scores get) exp overflows float32 above ~88.7: the row sum is +Inf and the
# overflowing elements become Inf/Inf = NaN, where the reference (which subtracts the max) is finite.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=32, cols=128, scale=1.0), dict(rows=32, cols=128, scale=50.0)]


@triton.jit
def softmax(x_ptr, out_ptr, cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * stride_row + offs, mask=m, other=-float("inf"))
    e = tl.exp(x)  # bug: exp(x - max(x)) is the stable form
    tl.store(out_ptr + row * stride_row + offs, e / tl.sum(e, axis=0), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 128, scale: float = 1.0) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * scale).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax[(rows,)](x, out, cols, x.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=1)
