# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# A 3-point smoothing filter with zero padding, out[i] = 0.25*x[i-1] + 0.5*x[i] + 0.25*x[i+1]
# (x[-1] = x[n] = 0).  The right neighbour's mask is right (offs + 1 < n), but the left neighbour is
# loaded with the mask `offs < n` instead of `(offs >= 1) & (offs < n)`: at program 0, lane 0 loads
# x[-1], one element BEFORE the start of x, at every size.  Its value enters out[0], which is then
# whatever precedes x in memory (a guard region's sentinel, an allocator header, the tail of another
# tensor) instead of 0.5*x[0] + 0.25*x[1]; all other elements are right.  The plain interpreter
# checks no bounds and reads that memory silently: where it holds 0.0 (a fresh CPU allocation often
# does) out[0] is even right and the outputs match; with a filled guard region before x, out[0] is
# wrong.  A bounds check on the loads shows one element read at offset -1 of x, at every size.
# On a GPU: memcheck "Invalid __global__ read of size 4" 4 bytes before the allocation (or nothing,
# if x sits inside a larger block).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def smooth3(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    left = tl.load(x_ptr + offs - 1, mask=m, other=0.0)  # bug: mask needs offs >= 1 as well
    right = tl.load(x_ptr + offs + 1, mask=offs + 1 < n, other=0.0)
    tl.store(out_ptr + offs, 0.25 * left + 0.5 * x + 0.25 * right, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    smooth3[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    xp = torch.nn.functional.pad(x[None, None, :], (1, 1))
    w = torch.tensor([0.25, 0.5, 0.25], dtype=x.dtype, device=x.device)
    return torch.nn.functional.conv1d(xp, w[None, None, :])[0, 0]
