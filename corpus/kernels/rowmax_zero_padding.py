# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# A row maximum that walks each row in BLOCK=64 chunks.  The loads are masked, but the masked lanes
# are filled with other=0.0, which is neutral for a sum and not for a max (it must be -inf).  When
# the row length is a multiple of 64 (cols=256) there are no padding lanes and every row is right.
# At the declared cols=100 the last chunk has 28 padding lanes holding 0.0, so every row whose
# values are all negative (about half the rows: the inputs are centred at -2.5) returns 0.0 instead
# of its true (negative) maximum; rows with a positive element are right.  Nothing is out of bounds.
# Rounded up to cols=128 (no padding) the same kernel passes: the tail lanes enter the reduction.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 64
SIZES = [dict(rows=64, cols=256), dict(rows=64, cols=100)]


@triton.jit
def row_max(x_ptr, out_ptr, cols, stride_r, stride_c, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK,), -float("inf"), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_r + offs * stride_c, mask=offs < cols, other=0.0)  # bug: other=-inf
        acc = tl.maximum(acc, x)
    tl.store(out_ptr + row, tl.max(acc, axis=0))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) - 2.5).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_max[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.amax(dim=1)
