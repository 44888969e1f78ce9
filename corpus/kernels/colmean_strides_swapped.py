# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A column mean, out[c] = mean_r x[r, c] (a reduction along dim 0), with one program per block of 32
# columns walking down the rows in chunks of 64.  The kernel itself addresses x[r, c] as
# r * stride_r + c * stride_c, but the wrapper passes x.stride(1), x.stride(0) in that order: the two
# strides are swapped.  For the declared contiguous inputs (rows > cols) the kernel reads
# x.flat[r + c * cols], i.e. column c's "mean" is the mean of `rows` consecutive elements starting at
# row c's first element: wrong in every column (the first one too), a plausible-looking value.  All
# addresses stay inside x (rows - 1 + (cols - 1) * cols < rows * cols when rows > cols), both tails
# are masked, and every output element is written: only the comparison shows it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_R, BLOCK_C = 64, 32
SIZES = [dict(rows=256, cols=64), dict(rows=100, cols=70)]


@triton.jit
def col_mean(x_ptr, out_ptr, rows, cols, stride_r, stride_c, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    c = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, rows, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        m = (r[:, None] < rows) & (c[None, :] < cols)
        x = tl.load(x_ptr + r[:, None] * stride_r + c[None, :] * stride_c, mask=m, other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(out_ptr + c, acc / rows, mask=c < cols)


def make_inputs(device: str, seed: int = 0, rows: int = 256, cols: int = 64) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    # a different offset per column, so a column's mean says which column it came from
    x = torch.randn(rows, cols, generator=g) + torch.linspace(-2.0, 2.0, cols)[None, :]
    return (x.to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(cols, dtype=torch.float32, device=x.device)
    col_mean[(triton.cdiv(cols, BLOCK_C),)](x, out, rows, cols, x.stride(1), x.stride(0),  # bug: swapped
                                            BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.mean(dim=0)
