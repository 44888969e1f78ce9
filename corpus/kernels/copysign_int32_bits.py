# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=dtype-unexpected
# copysign(x, y), the magnitude of x with the sign of y (as a sign-transfer step of an optimizer
# update or a symmetric quantizer uses it), computed with bit operations on the float's pattern:
# the float32 values are bitcast to int32, (bits(x) & 0x7FFFFFFF) | (bits(y) & 0x80000000), and
# bitcast back.  That is exact for float32, including -0.0 in y and signed zeros in x, and every
# declared size is float32 (n=4096 and n=1000 with a masked tail): the outputs are bit-exact.  The
# kernel hard-codes the 32-bit layout: a float16 or bfloat16 input (a dtype probe outside the
# contract) makes `x.to(tl.int32, bitcast=True)` fail to compile ("Cannot bitcast data-type of size
# 16 to data-type of size 32"), under the interpreter as for the GPU, before anything is stored; a
# float64 input fails the same way (size 64).  Nothing is out of bounds at any size; strided 1-D
# views are honoured.  The kernel assumes float32; choosing the integer type from the element size
# (or tl.where(y < 0, -|x|, |x|) with a separate test for -0.0) would widen the contract.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def copysign_bits(x_ptr, y_ptr, out_ptr, n, sx, sy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs * sx, mask=m, other=0.0)
    y = tl.load(y_ptr + offs * sy, mask=m, other=0.0)
    xb = x.to(tl.int32, bitcast=True)
    yb = y.to(tl.int32, bitcast=True)
    rb = (xb & 0x7FFFFFFF) | (yb & -2147483648)
    tl.store(out_ptr + offs, rb.to(tl.float32, bitcast=True), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, generator=g)
    y = torch.randn(n, generator=g)
    y[::97] = -0.0
    x[::89] = 0.0
    return x.to(device), y.to(device)


def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    out = torch.empty(n, dtype=x.dtype, device=x.device)
    copysign_bits[(triton.cdiv(n, BLOCK),)](x, y, out, n, x.stride(0), y.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.copysign(x, y)
