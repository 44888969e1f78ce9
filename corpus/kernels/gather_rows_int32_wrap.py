# kdiag corpus kernel — expected: verdict=pass, category=none
# A row gather, out[i, :] = table[idx[i], :], with int32 indices that follow Python's convention
# (as torch's table[idx] does): an index in [-V, 0) counts from the end, so -1 is the last row.  The
# declared indices cover the whole range [-V, V), with repeats.  Each program loads a block of 16
# indices (masked tail), maps a negative one to idx + V, widens it to int64 before multiplying by the
# table's row stride, and copies a 64-column block of each row (masked column tail); the strides of
# idx, table and out are honoured.  Every read lies inside the table; the copy is bit for bit.
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
    idx = tl.where(idx < 0, idx + V, idx)
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
