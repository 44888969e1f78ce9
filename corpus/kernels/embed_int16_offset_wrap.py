# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# A positional-embedding add, out[t, :] = x[t, :] + pos_table[pos[t], :], with the positions stored as
# int16 (a memory-saving choice: positions < 4096 fit).  The kernel loads the int16 positions and
# computes the row offset `pos * D` before widening it: D is a constexpr, so the product stays int16
# (a constexpr takes the tensor's type, as on a GPU) and wraps for pos * D >= 32768, i.e. for every
# position >= 256 with D = 128; the widening `.to(tl.int64)` comes after the wrap.  Positions
# 256..511 and 768..1023 give offsets of -32768..-128 elements: reads before the start of pos_table,
# up to 32768 elements (128 KiB) before it; positions 512..767 wrap to the offset of row pos - 512
# (inside the table, the wrong row).  The declared positions run 0..1023 (a sequence of 1024 tokens,
# and a shuffled batch of 300 of them): half the tokens read before the table (512 of 1024, 130 of
# 300), a quarter read a wrong row inside it (256, 91), and only those with pos < 256 are right
# (256, 79).  With a NaN guard region before the table, 768 of 1024 and 221 of 300 output rows are
# wrong, the out-of-bounds ones NaN.
# The loads of x and the stores are in bounds; the plain interpreter reads whatever lies before the
# table (garbage, possibly a crash).  Widening first, pos.to(tl.int64) * D, fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

D = 128
MAX_POS = 1024
BLOCK_T = 16
SIZES = [dict(t=1024), dict(t=300)]


@triton.jit
def add_pos_embedding(x_ptr, pos_ptr, tab_ptr, out_ptr, T, D: tl.constexpr, BLOCK_T: tl.constexpr):
    rt = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    rd = tl.arange(0, D)
    tm = rt < T
    pos = tl.load(pos_ptr + rt, mask=tm, other=0)  # int16
    row_off = (pos * D).to(tl.int64)  # the int16 product wraps before the widening
    x = tl.load(x_ptr + rt[:, None] * D + rd[None, :], mask=tm[:, None], other=0.0)
    e = tl.load(tab_ptr + row_off[:, None] + rd[None, :], mask=tm[:, None], other=0.0)
    tl.store(out_ptr + rt[:, None] * D + rd[None, :], x + e, mask=tm[:, None])


def make_inputs(device: str, seed: int = 0, t: int = 1024) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(t, D, generator=g)
    if t == MAX_POS:
        pos = torch.arange(t)
    else:
        pos = torch.randperm(MAX_POS, generator=g)[:t]
    table = torch.randn(MAX_POS, D, generator=g)
    return x.to(device), pos.to(torch.int16).to(device), table.to(device)


def kernel(x: torch.Tensor, pos: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    T = x.shape[0]
    x, pos, table = x.contiguous(), pos.contiguous(), table.contiguous()
    out = torch.empty_like(x)
    add_pos_embedding[(triton.cdiv(T, BLOCK_T),)](x, pos, table, out, T, D=D, BLOCK_T=BLOCK_T)
    return out


def reference(x: torch.Tensor, pos: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return x + table[pos.long()]
