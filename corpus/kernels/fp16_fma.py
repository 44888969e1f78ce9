# kdiag corpus kernel — expected: verdict=pass, category=none
# A float16 kernel, out = silu(x) * y, computed in float32 inside the kernel and rounded to
# float16 once at the store; torch's float16 reference rounds at different points, so the two
# differ by at most a few float16 ULP: within the default float16 tolerance.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 512
SIZES = [dict(n=8192), dict(n=3000)]


@triton.jit
def silu_mul(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=m).to(tl.float32)
    out = x / (1.0 + tl.exp(-x)) * y
    tl.store(out_ptr + offs, out.to(tl.float16), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 8192) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, generator=g).to(torch.float16).to(device)
    y = torch.randn(n, generator=g).to(torch.float16).to(device)
    return x, y


def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    silu_mul[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x) * y
