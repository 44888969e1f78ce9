# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# A row scatter-add, out = base.index_add(0, idx, src): src row i is added to out row idx[i] (the
# backward of an embedding lookup, a GNN's message aggregation).  The wrapper copies base into a new
# output and launches one program per (source row, block of 64 features); each program loads
# out[idx[i], cols], adds src[i, cols] and stores it back with a plain tl.store.  The indices repeat
# (256 source rows onto 16 target rows at the first declared size, every target receiving 9..23
# contributions; 300 onto 40 at the second, 3..16 each), so several programs read-modify-write the
# same elements with no atomic: on a GPU those programs run concurrently and all but one of their updates
# can be lost, differently from run to run.  Under the interpreter the programs run one after another
# in order, each sees the previous one's store, and the result is RIGHT (bit-exact against
# index_add, which adds in the same order); within one program no two lanes share an address (one row,
# distinct columns), so nothing collides inside a block either.  What shows without a GPU is the
# access pattern: every element of a repeated target row is loaded and then stored by several
# different programs without tl.atomic_add.  All accesses are masked (D=100: a 36-wide tail block) and
# in bounds; idx is int64 in [0, rows).  tl.atomic_add(out + ..., src) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_D = 64
SIZES = [dict(rows=16, n_src=256, d=64), dict(rows=40, n_src=300, d=100)]


@triton.jit
def index_add_rows(out_ptr, idx_ptr, src_ptr, D, sor, soc, ssr, ssc, BLOCK_D: tl.constexpr):
    i = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    cm = cols < D
    t = tl.load(idx_ptr + i)
    s = tl.load(src_ptr + i * ssr + cols * ssc, mask=cm, other=0.0)
    cur = tl.load(out_ptr + t * sor + cols * soc, mask=cm, other=0.0)
    tl.store(out_ptr + t * sor + cols * soc, cur + s, mask=cm)


def make_inputs(device: str, seed: int = 0, rows: int = 16, n_src: int = 256, d: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    base = torch.randn(rows, d, generator=g)
    idx = torch.randint(0, rows, (n_src,), generator=g, dtype=torch.int64)
    src = torch.randn(n_src, d, generator=g)
    return base.to(device), idx.to(device), src.to(device)


def kernel(base: torch.Tensor, idx: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    out = base.clone(memory_format=torch.contiguous_format)
    n_src, D = src.shape
    idx = idx.contiguous()
    grid = (n_src, triton.cdiv(D, BLOCK_D))
    index_add_rows[grid](out, idx, src, D, out.stride(0), out.stride(1), src.stride(0), src.stride(1),
                         BLOCK_D=BLOCK_D)
    return out


def reference(base: torch.Tensor, idx: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return base.index_add(0, idx, src)
