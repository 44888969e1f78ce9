# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A row softmax that handles ROWS=4 rows per program as one (4, BLOCK) tile (the whole row fits one
# block), subtracting the maximum first.  The reductions are written over axis=0 where the rows
# run along axis=1: tl.max(x, axis=0) and tl.sum(e, axis=0) reduce down the 4 rows of each column,
# so the kernel returns a softmax over each group of 4 rows, column by column, instead of over each
# row.  The shapes broadcast without complaint ((BLOCK,) against (4, BLOCK)), the max is still
# subtracted (nothing overflows: all values finite), the masked lanes (cols=100 in a 128 block, the
# last partial group of rows=30) load -inf and are not stored.  Nearly every element is wrong at both
# declared sizes, each output column of a 4-row group sums to 1 instead of each row: no index
# pattern, no transposition, nothing unwritten, nothing out of bounds.  axis=1 (with [:, None]) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

ROWS = 4
SIZES = [dict(rows=64, cols=128), dict(rows=30, cols=100)]


@triton.jit
def softmax_rows(x_ptr, out_ptr, rows, cols, sxr, sxc, sor, soc, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rr = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cc = tl.arange(0, BLOCK)
    m = (rr[:, None] < rows) & (cc[None, :] < cols)
    x = tl.load(x_ptr + rr[:, None] * sxr + cc[None, :] * sxc, mask=m, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))  # bug: the row maximum is tl.max(x, axis=1)[:, None]
    p = e / tl.sum(e, axis=0)  # bug: the row sum is tl.sum(e, axis=1)[:, None]
    tl.store(out_ptr + rr[:, None] * sor + cc[None, :] * soc, p, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 128) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * 2.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    softmax_rows[(triton.cdiv(rows, ROWS),)](x, out, rows, cols, x.stride(0), x.stride(1),
                                             out.stride(0), out.stride(1),
                                             ROWS=ROWS, BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=1)
