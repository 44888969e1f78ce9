# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# out = x * scale + bias, tiled in 2-D (32x32 tiles), but the store swaps the row and column offsets:
# tile (i, j) is written at (j, i), transposed.  The declared shapes are square, so every store stays
# inside `out` (no out-of-bounds lane, no canary hit) and every element is written: the output is
# exactly the reference transposed, right on the diagonal and wrong everywhere else.
from __future__ import annotations

import torch
import triton
import triton.language as tl

TILE = 32
SIZES = [dict(n=64), dict(n=96)]


@triton.jit
def scale_bias(x_ptr, out_ptr, n, stride_row, scale, bias, TILE: tl.constexpr):
    rows = tl.program_id(0) * TILE + tl.arange(0, TILE)
    cols = tl.program_id(1) * TILE + tl.arange(0, TILE)
    m = (rows[:, None] < n) & (cols[None, :] < n)
    x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=m)
    y = x * scale + bias
    tl.store(out_ptr + cols[None, :] * stride_row + rows[:, None], y, mask=m)  # bug: rows/cols swapped


def make_inputs(device: str, seed: int = 0, n: int = 64) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, TILE), triton.cdiv(n, TILE))
    scale_bias[grid](x, out, n, x.stride(0), 2.0, 0.5, TILE=TILE)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 2.0 + 0.5
