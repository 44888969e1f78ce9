# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# The loads and the store have no mask, and the declared SIZES include n=1000, which is not a
# multiple of BLOCK (256): the last program reads x[1000:1024] and y[1000:1024] and writes
# out[1000:1024].  Under the interpreter the values of out[:1000] are right; only the bounds checks
# (harness.triton_hooks: oob loads/stores on x_ptr, y_ptr, out_ptr, 24 elements past the end) and
# the canary guards show the defect.  On a GPU: memcheck "Invalid __global__ read".
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000)]


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
