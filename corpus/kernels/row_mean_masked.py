# kdiag corpus kernel — expected: verdict=pass, category=none
# A row mean over a float32 matrix, one program per row, walking the row in BLOCK-wide chunks with a
# masked tail (other=0.0 is neutral for a sum, and the divisor is the true column count, not the
# padded one), accumulated in float32 (float64 for float64 input) and stored in the input's dtype.
# Both strides are passed, so transposed and sliced views are read correctly.  The summation order
# differs from torch.mean's: a few ULP of float32, inside the default tolerance.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=48, cols=2048), dict(rows=33, cols=1531), dict(rows=5, cols=7)]


@triton.jit
def row_mean(x_ptr, out_ptr, cols, stride_r, stride_c, BLOCK: tl.constexpr, ACC: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=ACC)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride_r + offs * stride_c, mask=offs < cols, other=0.0).to(ACC)
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / cols)


def make_inputs(device: str, seed: int = 0, rows: int = 48, cols: int = 2048) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.rand(rows, cols, generator=g) + 0.5).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    acc = tl.float64 if x.dtype == torch.float64 else tl.float32  # float32 or wider accumulator
    row_mean[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK, ACC=acc)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.mean(dim=1)
