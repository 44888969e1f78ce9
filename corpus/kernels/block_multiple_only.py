# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=shape-not-multiple-of-block
# The same unmasked kernel as missing_mask_tail.py, but its contract (SIZES) only holds multiples of
# BLOCK (256), so every declared size passes.  A probe outside the contract (n=1000, 4097) reads
# and writes past the end: the kernel assumes n % BLOCK == 0 (harness.triton_hooks sees the
# out-of-bounds lanes for any n % BLOCK != 0).  The caller broke an assumption the kernel makes.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=10240)]  # every declared size is a multiple of BLOCK (16 and 40 blocks)


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # no mask: reads past the end when n % BLOCK != 0
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, 2.0 * x + y)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, generator=g).to(device)
    y = torch.randn(n, generator=g).to(device)
    return x, y


def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    scale_add[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return 2.0 * x + y
