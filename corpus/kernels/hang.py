# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=hang
# A grid-stride loop whose index is never advanced: `while i < n` is true forever for every
# program.  The interpreter (and a GPU) spin until the runner's wall-clock limit stops the child;
# the kernel compiles fine for the target, and the launch is recorded before it runs.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(n=1024)]


@triton.jit
def scale_loop(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK
    while i < n:
        offs = i + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 3.0, mask=m)
        # bug: missing `i += tl.num_programs(0) * BLOCK`


def make_inputs(device: str, seed: int = 0, n: int = 1024) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    scale_loop[(2,)](x, out, x.numel(), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 3.0
