# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-launch-grid
# A persistent (grid-stride) kernel for out = x * sigmoid(x) (SiLU): the wrapper sizes the grid as
# min(n // MIN_PER_PROG, MAX_PROGS) programs, "one program per 2048 elements, at most one per SM",
# and each program loops over the blocks pid, pid + num_programs, ...  The kernel body is right, but
# the heuristic lacks a max(1, ...): at the declared n=1500 (< 2048) the grid is (0,), no program
# runs and nothing is written, so the whole output is whatever torch.empty returned (a sentinel fill
# shows every element unwritten; a reused or zeroed allocation can hide it).  n=65536 (32 programs)
# is right everywhere, and so is n=5000 (2 programs: the grid-stride loop covers the tail).  Nothing
# is out of bounds; the launch with a zero grid dimension is accepted silently (on a GPU too).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
MIN_PER_PROG = 2048
MAX_PROGS = 132  # H100 SM count
SIZES = [dict(n=65536), dict(n=5000), dict(n=1500)]


@triton.jit
def silu_persistent(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    nblocks = tl.cdiv(n, BLOCK)
    for blk in range(tl.program_id(0), nblocks, tl.num_programs(0)):
        offs = blk * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(out_ptr + offs, x * tl.sigmoid(x), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 65536) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    progs = min(n // MIN_PER_PROG, MAX_PROGS)  # bug: max(1, ...) (or cdiv)
    silu_persistent[(progs,)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x)
