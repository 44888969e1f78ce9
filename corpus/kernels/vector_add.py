# kdiag corpus kernel — expected: verdict=pass, category=none
# A masked vector add: every load and store is guarded by offs < n, so n=1000 (not a multiple of
# BLOCK) is handled; the bounds checks record no out-of-bounds access and the output matches
# exactly.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000), dict(n=1)]


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(n, generator=g).to(device), torch.randn(n, generator=g).to(device)


def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    add[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y
