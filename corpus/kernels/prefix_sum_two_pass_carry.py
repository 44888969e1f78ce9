# kdiag corpus kernel — expected: verdict=pass, category=none
# An inclusive prefix sum of a long 1-D vector of non-negative weights, out[i] = sum_{j <= i} x[j] (the
# unnormalised CDF a sampler searches), in two passes with a block-carry array: pass 1 (one program per
# 256 elements) scans its block with tl.cumsum, stores the local scan and writes the block's total into
# totals[pid]; a single program then turns totals into an exclusive scan (carry[b] = sum of the totals
# of blocks before b), walking it in chunks of 64 with a running carry of its own (30000 elements are
# 118 blocks); pass 2 adds carry[pid] to every element of block pid.  Nothing reads a value before the
# launch that writes it has finished, so the result does not depend on the order in which programs run.
# The last block is masked (30000 and 1000 are not multiples of 256).  The input may be strided (its
# stride is passed).  Against torch.cumsum only the order of the float32 additions differs: relative
# errors of a few 1e-7 on sums up to ~15000, within the default float32 tolerance.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
CARRY_BLOCK = 64
SIZES = [dict(n=30000), dict(n=1000)]


@triton.jit
def scan_blocks(x_ptr, out_ptr, totals_ptr, n, sx, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * sx, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)
    tl.store(totals_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def exclusive_carry(totals_ptr, carry_ptr, nb, CARRY_BLOCK: tl.constexpr):
    run = 0.0
    for b0 in range(0, nb, CARRY_BLOCK):
        b = b0 + tl.arange(0, CARRY_BLOCK)
        t = tl.load(totals_ptr + b, mask=b < nb, other=0.0)
        inc = tl.cumsum(t, axis=0)
        tl.store(carry_ptr + b, run + inc - t, mask=b < nb)
        run += tl.sum(t, axis=0)


@triton.jit
def add_carry(out_ptr, carry_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    c = tl.load(carry_ptr + pid)
    y = tl.load(out_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, y + c, mask=offs < n)


def make_inputs(device: str, seed: int = 0, n: int = 30000) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    nb = triton.cdiv(n, BLOCK)
    out = torch.empty(n, dtype=torch.float32, device=x.device)
    totals = torch.empty(nb, dtype=torch.float32, device=x.device)
    carry = torch.empty(nb, dtype=torch.float32, device=x.device)
    scan_blocks[(nb,)](x, out, totals, n, x.stride(0), BLOCK=BLOCK)
    exclusive_carry[(1,)](totals, carry, nb, CARRY_BLOCK=CARRY_BLOCK)
    add_carry[(nb,)](out, carry, n, BLOCK=BLOCK)
    return out.to(x.dtype)


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x.to(torch.float32), dim=0).to(x.dtype)
