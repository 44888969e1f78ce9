# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# A row gather, out[i, :] = table[idx[i], :], with int32 indices that follow Python's convention,
# as the reference's table[idx] does: an index in [-V, 0) counts from the end (-1 is the last row),
# and the declared indices cover the whole range [-V, V).  The kernel uses each index as a row
# offset as it is, without adding V to a negative one (no `tl.where(idx < 0, idx + V, idx)`: it
# was written as if every index were in [0, V)).  About half the indices are
# negative, so about half the output rows are read from up to V rows BEFORE the start of the table
# (row offsets -V*D .. -D elements: 12 KiB before a 64x48 float32 table), every one of those rows
# wrong (51 of 100 rows, 2448 of 4800 elements at t=100; 126 of 256 rows at t=256); rows with a
# non-negative index are right.  The plain interpreter checks no bounds and copies whatever memory precedes the table (values that look like data, zeros or NaN; a crash is
# possible if that memory is unmapped); bounds checks on the loads see reads at negative offsets of
# the table at every declared size.  Stores are all inside out.  Negative indices are part of the
# declared inputs and the reference accepts them, so this is the kernel's bug, not a malformed input.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_T, BLOCK_D = 16, 64
SIZES = [dict(t=100, vocab=64, dim=48), dict(t=256, vocab=50, dim=96)]


@triton.jit
def gather_rows(idx_ptr, table_ptr, out_ptr, T, V, D, si, stv, std, sot, sod,
                BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    offs_t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_t = offs_t < T
    idx = tl.load(idx_ptr + offs_t * si, mask=mask_t, other=0)
    # bug: a negative index counts from the end: idx = tl.where(idx < 0, idx + V, idx)
    mask = mask_t[:, None] & (offs_d[None, :] < D)
    rows = tl.load(table_ptr + idx.to(tl.int64)[:, None] * stv + offs_d[None, :] * std, mask=mask, other=0.0)
    tl.store(out_ptr + offs_t[:, None] * sot + offs_d[None, :] * sod, rows, mask=mask)


def make_inputs(device: str, seed: int = 0, t: int = 100, vocab: int = 64, dim: int = 48):
    g = torch.Generator(device="cpu").manual_seed(seed)
    idx = torch.randint(-vocab, vocab, (t,), generator=g, dtype=torch.int32)
    table = torch.randn(vocab, dim, generator=g)
    return idx.to(device), table.to(device)


def kernel(idx: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    T = idx.shape[0]
    V, D = table.shape
    out = torch.empty((T, D), dtype=table.dtype, device=table.device)
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))
    gather_rows[grid](idx, table, out, T, V, D, idx.stride(0), table.stride(0), table.stride(1),
                      out.stride(0), out.stride(1), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def reference(idx: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return table[idx.long()]
