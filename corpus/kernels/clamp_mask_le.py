# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-write
# A clamp, out = min(max(x, lo), hi), whose mask is written `offs <= n` instead of `offs < n`: one
# lane too many is enabled.  At n=4096 (16 full blocks of 256) no lane reaches index n, so nothing
# happens; at the declared n=1000 the last block enables the lane at index 1000, which reads x[1000]
# and writes out[1000], one element past the end of both.  The 1000 values returned are all right:
# only bounds checks on the loads/stores (and a guard region after `out`, whose first element is
# overwritten) show it.  The plain interpreter checks no bounds and reads whatever follows x.
# On a GPU: compute-sanitizer memcheck "Invalid __global__ write of size 4", one element past out.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def clamp(x_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs <= n  # bug: off by one, `offs < n`
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.minimum(tl.maximum(x, lo), hi), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(n, generator=g) * 2).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    clamp[(triton.cdiv(n, BLOCK),)](x, out, n, -1.0, 1.5, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, -1.0, 1.5)
