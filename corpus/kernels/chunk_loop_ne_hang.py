# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=hang
# A scaled copy, out = x * alpha, where each program owns a chunk of CHUNK=512 elements and walks it
# in BLOCK=128 steps with `while i != end` (end = the chunk's end, or n for the last chunk).  For a
# full chunk the walk lands exactly on end and the loop stops.  The last program of a size that is
# not a multiple of BLOCK never lands on end: at the declared n=1000 it walks 512, 640, 768, 896,
# 1024, ... past 1000 forever (its masked loads and stores touch nothing past the end, so no
# out-of-bounds lane shows it, only the time).  n=4096 (8 full chunks) finishes and is right; n=1000
# never returns, under the interpreter as on a GPU, until a wall-clock limit stops it.  The kernel
# compiles fine for the target.  `while i < end` is the fix.
from __future__ import annotations

import torch
import triton
import triton.language as tl

CHUNK, BLOCK = 512, 128
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def scale_chunks(x_ptr, out_ptr, n, alpha, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    start = tl.program_id(0) * CHUNK
    end = tl.minimum(start + CHUNK, n)
    i = start
    while i != end:  # bug: never true again once i steps past end (`i < end`)
        offs = i + tl.arange(0, BLOCK)
        m = offs < end
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)
        i += BLOCK


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    scale_chunks[(triton.cdiv(n, CHUNK),)](x, out, n, 0.75, CHUNK=CHUNK, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 0.75
