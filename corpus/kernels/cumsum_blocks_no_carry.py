# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# An inclusive prefix sum of a 1-D vector, out[i] = sum_{j <= i} x[j], launched with one program per
# BLOCK=256 elements.  Each program scans its own block with tl.cumsum and stores it, but nothing adds
# the totals of the earlier blocks (no carry: no second pass over the block sums, no decoupled
# look-back).  The first block is right; every later block is the reference minus a constant, the sum
# of all blocks before it, so the error is constant inside a block and grows block by block.  Every
# element is written, every access is masked and in bounds.  The declared sizes (n=4096 and n=1000)
# both span several blocks; a vector of at most 256 elements would pass.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def block_cumsum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=m)  # bug: + the sum of all earlier blocks


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    out = torch.empty_like(x)
    block_cumsum[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=0)
