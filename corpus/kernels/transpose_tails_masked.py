# kdiag corpus kernel — expected: verdict=pass, category=none
# A 2-D transpose into a new contiguous tensor, out[j, i] = x[i, j], in 32x32 tiles: each program
# loads one tile of x through both of x's strides and stores it transposed through both of out's.
# Both tails are masked with the same 2-D mask on the load and the store (100x70: a partial tile on
# each axis; 64x160 is not square, so a mix-up of the two extents or of the grid axes would show).
# A transpose does no arithmetic: the output is bit-exact.  Non-contiguous inputs (a transposed or a
# row-padded view) are read through their strides and give the same exact result.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 32, 32
SIZES = [dict(m=100, n=70), dict(m=64, n=160)]


@triton.jit
def transpose2d(x_ptr, out_ptr, M, N, sxm, sxn, som, son, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=m)
    # out has shape (N, M): element (rn, rm) receives x[rm, rn]
    tl.store(out_ptr + rn[None, :] * som + rm[:, None] * son, tile, mask=m)


def make_inputs(device: str, seed: int = 0, m: int = 100, n: int = 70) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(m, n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N, M), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    transpose2d[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                      BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.t().contiguous()
