# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# A CSR sparse matrix-vector product, y = A @ x, "vector CSR" style: each program takes a block of 16
# rows at once (grid = cdiv(rows, 16)) and walks them in lockstep for max_len steps (the longest row,
# computed on the host), lane k of row r live while k < end[r] - start[r].  The row block is masked for
# the store and for the load of start = row_ptr[r], but the load of end = row_ptr[r + 1] is not: the
# author reasoned that r + 1 <= rows always indexes row_ptr's rows + 1 entries, which holds only for
# rows that exist.  When rows is not a multiple of 16 the last program's padding rows read row_ptr
# past its end: at the declared rows=100 (7 programs, rows 96..111) row_ptr[101..112], 12 int64
# elements after the end of a 101-element tensor.  Those garbage ends never reach the result (the
# gather mask also requires r < rows), so y is right to a few ULP at both declared sizes and only a
# bounds check on the loads shows the read; rows=64 (a multiple of 16) is clean.  The plain interpreter
# reads whatever follows row_ptr in memory, silently.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_R = 16
SIZES = [dict(rows=100, cols=300), dict(rows=64, cols=64)]


@triton.jit
def spmv_vector_csr(row_ptr, col_idx, vals, x_ptr, y_ptr, rows, max_len, sx, BLOCK_R: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = r < rows
    start = tl.load(row_ptr + r, mask=rmask, other=0)
    end = tl.load(row_ptr + r + 1)
    length = end - start
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for k in range(0, max_len):
        m = rmask & (k < length)
        j = start + k
        c = tl.load(col_idx + j, mask=m, other=0)
        v = tl.load(vals + j, mask=m, other=0.0)
        xv = tl.load(x_ptr + c * sx, mask=m, other=0.0)
        acc += v.to(tl.float32) * xv.to(tl.float32)
    tl.store(y_ptr + r, acc, mask=rmask)


def make_inputs(device: str, seed: int = 0, rows: int = 100, cols: int = 300) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    lengths = torch.randint(0, 24, (rows,), generator=g)
    lengths[torch.randperm(rows, generator=g)[: max(1, rows // 10)]] = 0
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
    max_len = int(row_ptr.diff().max())
    grid = (triton.cdiv(rows, BLOCK_R),)
    spmv_vector_csr[grid](row_ptr, col_idx, vals, x, y, rows, max_len, x.stride(0), BLOCK_R=BLOCK_R)
    return y


def reference(row_ptr, col_idx, vals, x) -> torch.Tensor:
    rows = row_ptr.numel() - 1
    row_of = torch.repeat_interleave(torch.arange(rows, device=row_ptr.device), row_ptr.diff())
    y = torch.zeros(rows, dtype=torch.float32, device=vals.device)
    return y.index_add_(0, row_of, vals.float() * x.float()[col_idx])
