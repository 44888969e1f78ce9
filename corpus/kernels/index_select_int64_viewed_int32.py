# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A row gather, out = table.index_select(0, idx), for int64 indices into a float32 (vocab, dim) table.
# The kernel was written for int32 indices, and the wrapper converts them with `idx.view(torch.int32)`
# (meant as a cheap cast, but .view(dtype) reinterprets the bytes: each little-endian int64 becomes two
# int32 words, its low half and its high half, 0 for these indices), then launches one row per
# original index.  Output row i therefore uses word i of the reinterpreted buffer: even rows 2j get
# idx[j] (the index of row j, not 2j), odd rows get 0 (the high half) and copy table row 0.  Only the
# first half of idx's bytes is read, every read is inside idx and inside the table (the words are valid
# indices), every element is written: no bounds check sees anything.  Row 0 is right, and a row is
# right by chance where the two indices coincide; the others are whole rows copied from the wrong
# table row (255 of 256 rows, 16318 of 16384 elements at n=256; 76 of 77 rows, 7600 of 7700 at n=77),
# odd rows all equal to table[0].
# idx.to(torch.int32) (or reading the int64 directly) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_R, BLOCK_D = 16, 64
SIZES = [dict(n=256, vocab=1000, dim=64), dict(n=77, vocab=5000, dim=100)]


@triton.jit
def gather_rows(idx_ptr, table_ptr, out_ptr, n, D, stv, std, sor, soc, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    rm = r < n
    m = rm[:, None] & (d[None, :] < D)
    idx = tl.load(idx_ptr + r, mask=rm, other=0).to(tl.int64)
    v = tl.load(table_ptr + idx[:, None] * stv + d[None, :] * std, mask=m, other=0.0)
    tl.store(out_ptr + r[:, None] * sor + d[None, :] * soc, v, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 256, vocab: int = 1000, dim: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    idx = torch.randint(0, vocab, (n,), generator=g)
    table = torch.randn(vocab, dim, generator=g)
    return idx.to(device), table.to(device)


def kernel(idx: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    n = idx.numel()
    D = table.shape[1]
    idx32 = idx.view(torch.int32)  # meant: idx.to(torch.int32)
    out = torch.empty((n, D), dtype=table.dtype, device=table.device)
    grid = (triton.cdiv(n, BLOCK_R), triton.cdiv(D, BLOCK_D))
    gather_rows[grid](idx32, table, out, n, D, table.stride(0), table.stride(1), out.stride(0), out.stride(1),
                      BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D)
    return out


def reference(idx: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return table.index_select(0, idx)
