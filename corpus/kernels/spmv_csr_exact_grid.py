# kdiag corpus kernel — expected: verdict=pass, category=none
# A CSR sparse matrix-vector product, y = A @ x, with A given as (row_ptr, col_idx, vals) in int64 /
# int64 / float32, as torch.sparse_csr_tensor holds it.  The grid has exactly one program per row
# (grid = (rows,)), so row_ptr is read at r and r + 1 with r <= rows - 1: never past its rows + 1
# entries.  Each program walks its row's nonzeros in chunks of 32 (the chunk tail masked with
# j < end), gathers x at the column indices of the live lanes only, and sums in float32; an empty
# row (several per matrix, row 1 always) runs no iteration and stores 0.0.  Row lengths vary from 0 to
# 70 (one row longer than two chunks), the columns are unsorted within a row as a CSR built by
# concatenation may leave them.  Against the reference (products summed with index_add_) only the
# order of the additions differs: a few ULP of float32, inside the default tolerance.  Every access is
# inside row_ptr, col_idx, vals, x and y.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 32
SIZES = [dict(rows=100, cols=300), dict(rows=64, cols=64)]


@triton.jit
def spmv_csr(row_ptr, col_idx, vals, x_ptr, y_ptr, sx, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    start = tl.load(row_ptr + r)
    end = tl.load(row_ptr + r + 1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for j0 in range(start, end, BLOCK):
        j = j0 + tl.arange(0, BLOCK)
        m = j < end
        c = tl.load(col_idx + j, mask=m, other=0)
        v = tl.load(vals + j, mask=m, other=0.0)
        xv = tl.load(x_ptr + c * sx, mask=m, other=0.0)
        acc += v.to(tl.float32) * xv.to(tl.float32)
    tl.store(y_ptr + r, tl.sum(acc, axis=0))


def make_inputs(device: str, seed: int = 0, rows: int = 100, cols: int = 300) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    lengths = torch.randint(0, 40, (rows,), generator=g)
    lengths[torch.randperm(rows, generator=g)[: max(1, rows // 10)]] = 0
    lengths[1] = 0
    lengths[rows // 2] = 70
    row_ptr = torch.zeros(rows + 1, dtype=torch.int64)
    row_ptr[1:] = torch.cumsum(lengths, 0)
    nnz = int(row_ptr[-1])
    col_idx = torch.randint(0, cols, (nnz,), generator=g, dtype=torch.int64)
    vals = torch.randn(nnz, generator=g)
    x = torch.randn(cols, generator=g)
    return row_ptr.to(device), col_idx.to(device), vals.to(device), x.to(device)


def kernel(row_ptr, col_idx, vals, x) -> torch.Tensor:
    rows = row_ptr.numel() - 1
    y = torch.empty(rows, dtype=torch.float32, device=vals.device)
    row_ptr, col_idx, vals = row_ptr.contiguous(), col_idx.contiguous(), vals.contiguous()
    spmv_csr[(rows,)](row_ptr, col_idx, vals, x, y, x.stride(0), BLOCK=BLOCK)
    return y


def reference(row_ptr, col_idx, vals, x) -> torch.Tensor:
    rows = row_ptr.numel() - 1
    row_of = torch.repeat_interleave(torch.arange(rows, device=row_ptr.device), row_ptr.diff())
    y = torch.zeros(rows, dtype=torch.float32, device=vals.device)
    return y.index_add_(0, row_of, vals.float() * x.float()[col_idx])
