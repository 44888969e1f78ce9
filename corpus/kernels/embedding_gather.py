# kdiag corpus kernel — expected: verdict=pass, category=none
# An embedding lookup, out[i, :] = table[ids[i], :], for int64 token ids (with repeats) into a
# float32 (vocab, dim) table: one program per block of 8 tokens and 64 columns of the embedding.
# The token tail (t=77) and the column tail (dim=100) are masked, the row address is computed in
# int64 from the id and the table's row stride, and both tables' and the output's strides are
# honoured.  Pure data movement: the result equals torch's indexing bit for bit.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_T, BLOCK_D = 8, 64
SIZES = [dict(t=256, vocab=1000, dim=128), dict(t=77, vocab=50, dim=100)]


@triton.jit
def gather_rows(ids_ptr, table_ptr, out_ptr, T, D, s_id, s_tv, s_td, s_ot,
                BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    rt = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    rd = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    ids = tl.load(ids_ptr + rt * s_id, mask=rt < T, other=0)
    m = (rt[:, None] < T) & (rd[None, :] < D)
    row = tl.load(table_ptr + ids[:, None] * s_tv + rd[None, :] * s_td, mask=m)
    tl.store(out_ptr + rt[:, None] * s_ot + rd[None, :], row, mask=m)


def make_inputs(device: str, seed: int = 0, t: int = 256, vocab: int = 1000, dim: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    ids = torch.randint(0, vocab, (t,), generator=g, dtype=torch.int64)
    table = torch.randn(vocab, dim, generator=g)
    return ids.to(device), table.to(device)


def kernel(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    T = ids.numel()
    D = table.shape[1]
    out = torch.empty((T, D), dtype=table.dtype, device=table.device)
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))
    gather_rows[grid](ids, table, out, T, D, ids.stride(0), table.stride(0), table.stride(1), out.stride(0),
                      BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def reference(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return table[ids]
