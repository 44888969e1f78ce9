# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=noncontiguous-input
# Column sums, out[c] = sum_r x[r, c]: one program per block of 32 columns, walking down the rows.
# The row stride is passed and honoured, but the column offset is added as `+ cols`, i.e. the
# kernel assumes x.stride(1) == 1.  Every declared input is contiguous, and a row-padded slice
# (x[:, :cols] of a wider buffer: stride(1) is still 1) is summed correctly too, so the declared
# sizes pass with masks on both tails.  A transposed view of the same values (stride(1) == rows)
# makes every column but the first read the wrong elements (all still inside x): the kernel assumes
# a unit column stride.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_C, BLOCK_R = 32, 64
SIZES = [dict(rows=256, cols=96), dict(rows=100, cols=70)]


@triton.jit
def col_sum(x_ptr, out_ptr, rows, cols, stride_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
            ACC: tl.constexpr):
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=ACC)
    for r0 in range(0, rows, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        m = (r[:, None] < rows) & (c[None, :] < cols)
        x = tl.load(x_ptr + r[:, None] * stride_r + c[None, :], mask=m, other=0.0)  # assumes stride(1) == 1
        acc += tl.sum(x.to(ACC), axis=0)
    tl.store(out_ptr + c, acc, mask=c < cols)


def make_inputs(device: str, seed: int = 0, rows: int = 256, cols: int = 96) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(rows, cols, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(cols, dtype=x.dtype, device=x.device)
    acc = tl.float64 if x.dtype == torch.float64 else tl.float32
    col_sum[(triton.cdiv(cols, BLOCK_C),)](x, out, rows, cols, x.stride(0), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, ACC=acc)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=0)
