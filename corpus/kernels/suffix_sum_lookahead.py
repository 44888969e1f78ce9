# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# A reverse (suffix) cumulative sum, out[i] = sum_{j >= i} x[j] (returns-to-go, a reverse cumsum over a
# sequence), in ONE launch with one program per BLOCK=256 elements.  Each program scans its block
# from the right (tl.cumsum(reverse=True)), publishes its block total in a zeroed scratch vector
# sums[b], and then adds the totals of all LATER blocks, read from sums[b+1:], as its carry.  Nothing
# orders those reads after the other programs' writes: programs of one launch have no ordering, and
# the carry is read before the blocks that own it have written it.  Under the interpreter the programs
# run in order 0, 1, 2, ..., so every later block is still unwritten (0.0) when it is read: the last
# block is right and every earlier block equals the reference minus the sum of all later blocks (a
# constant per block, growing towards the front): 3840 of 4096 elements wrong at n=4096, 768 of 1000
# at n=1000 (block 3 of 4 right).  On a GPU some carries arrive in time and some do not, so the result
# varies between runs.  All accesses are masked and in bounds; every element is written.  A second
# pass (or a decoupled look-back that waits on a flag) is needed.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
MAX_BLOCKS = 64
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def suffix_sum(x_ptr, out_ptr, sums_ptr, n, nblocks, BLOCK: tl.constexpr, MAX_BLOCKS: tl.constexpr):
    b = tl.program_id(0)
    offs = b * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    local = tl.cumsum(x, axis=0, reverse=True)
    tl.store(sums_ptr + b, tl.sum(x, axis=0))
    # carry = totals of the blocks after this one: read before those programs have written them
    later = tl.arange(0, MAX_BLOCKS)
    tot = tl.load(sums_ptr + later, mask=(later > b) & (later < nblocks), other=0.0)
    carry = tl.sum(tot, axis=0)
    tl.store(out_ptr + offs, local + carry, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    nblocks = triton.cdiv(n, BLOCK)
    assert nblocks <= MAX_BLOCKS
    out = torch.empty_like(x)
    sums = torch.zeros(nblocks, dtype=torch.float32, device=x.device)
    suffix_sum[(nblocks,)](x, out, sums, n, nblocks, BLOCK=BLOCK, MAX_BLOCKS=MAX_BLOCKS)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.flip(torch.cumsum(torch.flip(x, [0]), 0), [0])
