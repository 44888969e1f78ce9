# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# GELU in float32 computed with the tanh approximation,
#   0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))),
# where the reference is the exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))) (torch's default,
# approximate="none").  The two functions differ by up to ~4.7e-4 in absolute terms (relative
# errors of 1e-3 and more for negative x, where GELU is small), which is not float32 rounding: it is
# a different function.  With the declared inputs (randn * 2) about 37% of the elements, those with
# |x| roughly between 0.9 and 3.8, are outside float32's default tolerance (1e-4 + 1e-4*|ref|),
# scattered over the whole output, the same fraction at both sizes (the error depends on the value,
# not on the size or the position).  Against the tanh-approximate GELU the kernel matches to
# ~5e-7: the arithmetic is right, the formula is not the reference's.  Nothing is out of bounds or
# unwritten.  The kernel declares no TOLERANCE that would admit the approximation (float16's 1e-3
# would), so it fails its contract; approximate="tanh" in the reference, or erf in the kernel, fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 1024
SIZES = [dict(n=16384), dict(n=5000)]


@triton.jit
def gelu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0  # tanh(inner)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + t), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 16384) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(n, generator=g) * 2).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    gelu[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x)  # exact (erf) GELU
