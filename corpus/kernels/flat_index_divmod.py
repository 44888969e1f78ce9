# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# An elementwise out = x * x - 1 over an (M, N) matrix of any layout, launched as a flat 1-D range of
# M*N elements: each flat offset is mapped back to (row, col) to address x through its strides.  The
# mapping divides by the wrong extent: row = offs // M, col = offs % M (it must be // N and % N).
# The declared shapes have M > N, so every computed address still lands inside x (no out-of-bounds
# lane) and every element of out is written, but from the wrong element of x: the output is wrong
# almost everywhere (right only where the two mappings agree: the first M flat elements, then a few
# scattered ones); the errors start at flat index M = 96 (row 1, column 32 at m=96, n=64).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 512
SIZES = [dict(m=96, n=64), dict(m=50, n=30)]


@triton.jit
def square_minus_one(x_ptr, out_ptr, total, M, N, stride_r, stride_c, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    row = offs // M  # bug: offs // N
    col = offs % M   # bug: offs % N
    x = tl.load(x_ptr + row * stride_r + col * stride_c, mask=m)
    tl.store(out_ptr + offs, x * x - 1.0, mask=m)


def make_inputs(device: str, seed: int = 0, m: int = 96, n: int = 64) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(m, n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    total = M * N
    square_minus_one[(triton.cdiv(total, BLOCK),)](x, out, total, M, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * x - 1.0
