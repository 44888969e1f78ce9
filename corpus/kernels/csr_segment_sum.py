# kdiag corpus kernel — expected: verdict=pass, category=none
# A segmented sum over CSR row offsets, out[r, :] = sum_{j in [ptr[r], ptr[r+1])} vals[j, :], as a
# sparse-row aggregation (GNN message passing, embedding-bag "sum" mode) computes it: rows of very
# different lengths (0 to 39 entries), including empty rows (12 of 64, 8 of 37), whose output is 0.  One program
# per (row, block of 32 features) reads its two offsets from the int64 ptr array, walks the row's
# entries in chunks of 16 (a 16 x 32 tile per step, the entry tail masked with j < end) and sums them
# in float32; an empty row runs no iteration and stores the zero accumulator.  The feature tail
# (d=100: 4 blocks, the last one 4 wide) is masked, vals and out are addressed through both
# strides.  Against index_add_ into zeros the only difference is the order of the additions: a few
# ULP of float32, inside the default tolerance.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_J, BLOCK_D = 16, 32
SIZES = [dict(rows=64, d=64), dict(rows=37, d=100)]


@triton.jit
def csr_sum(ptr_ptr, vals_ptr, out_ptr, D, svj, svd, sor, sod,
            BLOCK_J: tl.constexpr, BLOCK_D: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D
    start = tl.load(ptr_ptr + r)
    end = tl.load(ptr_ptr + r + 1)
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for j0 in range(start, end, BLOCK_J):
        j = j0 + tl.arange(0, BLOCK_J)
        m = (j[:, None] < end) & cmask[None, :]
        v = tl.load(vals_ptr + j[:, None] * svj + cols[None, :] * svd, mask=m, other=0.0)
        acc += tl.sum(v, axis=0)
    tl.store(out_ptr + r * sor + cols * sod, acc, mask=cmask)


def make_inputs(device: str, seed: int = 0, rows: int = 64, d: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    lengths = torch.randint(0, 40, (rows,), generator=g)
    lengths[torch.randperm(rows, generator=g)[: max(1, rows // 8)]] = 0  # some empty rows
    lengths[1] = 0
    ptr = torch.zeros(rows + 1, dtype=torch.int64)
    ptr[1:] = torch.cumsum(lengths, 0)
    nnz = int(ptr[-1])
    vals = torch.randn(nnz, d, generator=g)
    return ptr.to(device), vals.to(device)


def kernel(ptr: torch.Tensor, vals: torch.Tensor) -> torch.Tensor:
    rows = ptr.numel() - 1
    D = vals.shape[1]
    out = torch.empty((rows, D), dtype=vals.dtype, device=vals.device)
    ptr = ptr.contiguous()
    grid = (rows, triton.cdiv(D, BLOCK_D))
    csr_sum[grid](ptr, vals, out, D, vals.stride(0), vals.stride(1), out.stride(0), out.stride(1),
                  BLOCK_J=BLOCK_J, BLOCK_D=BLOCK_D)
    return out


def reference(ptr: torch.Tensor, vals: torch.Tensor) -> torch.Tensor:
    rows = ptr.numel() - 1
    row_of = torch.repeat_interleave(torch.arange(rows, device=ptr.device), ptr.diff())
    out = torch.zeros((rows, vals.shape[1]), dtype=vals.dtype, device=vals.device)
    return out.index_add_(0, row_of, vals)
