# kdiag corpus kernel — expected: verdict=pass, category=none
# A batched outer product, out[b, i, j] = u[b, i] * v[b, j] (the rank-1 term of a low-rank update, a
# bilinear feature map), with u of shape (B, M) and v of shape (B, N), into a new (B, M, N) tensor.
# One program per (batch, 32-row tile, 32-column tile) on a 3-D grid; u and v are addressed through
# both of their strides (batch and element) and out through its three, so a transposed u (a (M, B)
# tensor viewed as (B, M)), a column slice of a wider v or a stepped slice give the same result.  Both
# tile tails are masked (50x70: a partial tile on each axis; 64x128 is not square, so a mix-up of
# M and N or of the grid axes would show).  One multiplication per element, as torch computes it: the
# output is bit-exact, every access inside u, v and out.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 32, 32
SIZES = [dict(b=4, m=50, n=70), dict(b=2, m=64, n=128)]


@triton.jit
def outer_kernel(u_ptr, v_ptr, out_ptr, M, N, sub, sui, svb, svj, sob, soi, soj,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    i = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    j = tl.program_id(2) * BLOCK_N + tl.arange(0, BLOCK_N)
    mi = i < M
    mj = j < N
    u = tl.load(u_ptr + b * sub + i * sui, mask=mi, other=0.0)
    v = tl.load(v_ptr + b * svb + j * svj, mask=mj, other=0.0)
    prod = u[:, None] * v[None, :]
    tl.store(out_ptr + b * sob + i[:, None] * soi + j[None, :] * soj, prod,
             mask=mi[:, None] & mj[None, :])


def make_inputs(device: str, seed: int = 0, b: int = 4, m: int = 50, n: int = 70) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    u = torch.randn(b, m, generator=g)
    v = torch.randn(b, n, generator=g)
    return u.to(device), v.to(device)


def kernel(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, M = u.shape
    N = v.shape[1]
    dtype = torch.promote_types(u.dtype, v.dtype)
    out = torch.empty((B, M, N), dtype=dtype, device=u.device)
    grid = (B, triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    outer_kernel[grid](u, v, out, M, N, *u.stride(), *v.stride(), *out.stride(),
                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return u[:, :, None] * v[:, None, :]
