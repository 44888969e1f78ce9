# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-output-dtype
# A SwiGLU gate, out = silu(a) * b, for float32 inputs.  The math is done in float32 inside the
# kernel, but the output is allocated as float16 (the buffer is made with a fixed dtype=torch.float16,
# left over from the half-precision version of the op), and tl.store rounds every value to float16
# on the way out.  The reference returns float32.  The output has the wrong dtype (float16 where
# float32 is expected: torch.allclose refuses to compare them), and its values differ from the
# float32 reference by float16 rounding: relative errors up to 2^-11 (~4.9e-4), about one element
# in eight outside float32's default tolerance (1e-4 + 1e-4*|ref|), scattered, with no index, tail or
# bounds pattern and no element unwritten.  Judged with float16's tolerance the values would pass: it
# is the dtype that is wrong.  Allocating the output with a's dtype fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 512
SIZES = [dict(n=8192), dict(n=3000)]


@triton.jit
def swiglu(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=m).to(tl.float32)
    tl.store(out_ptr + offs, a * tl.sigmoid(a) * b, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 8192) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(n, generator=g) * 2
    b = torch.randn(n, generator=g)
    return a.to(device), b.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a, b = a.contiguous(), b.contiguous()
    n = a.numel()
    out = torch.empty(a.shape, dtype=torch.float16, device=a.device)  # bug: dtype=a.dtype
    swiglu[(triton.cdiv(n, BLOCK),)](a, b, out, n, BLOCK=BLOCK)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(a) * b
