# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=shape-not-multiple-of-block
# A 2-D tiled residual update, out = x * gamma[col] + residual, in 32x32 tiles with no masks at all.
# Every shape in SIZES has both dimensions a multiple of 32, so the grid covers each matrix exactly
# and every declared size passes (and honours the row strides).  A probe with a dimension that is not
# a multiple of 32 (e.g. 70 x 50) makes the last row and column tiles read x, residual and gamma past
# their ends and write past the end of out: the kernel assumes M % 32 == 0 and N % 32 == 0.  Under the
# plain interpreter those reads return whatever follows the tensors; bounds checks on the loads and
# stores show them (the plain interpreter may also crash with a segmentation fault at such a size).
from __future__ import annotations

import torch
import triton
import triton.language as tl

TILE = 32
SIZES = [dict(m=64, n=128), dict(m=96, n=32)]


@triton.jit
def residual_scale(x_ptr, g_ptr, r_ptr, out_ptr, sxm, srm, som, TILE: tl.constexpr):
    rm = tl.program_id(0) * TILE + tl.arange(0, TILE)
    rn = tl.program_id(1) * TILE + tl.arange(0, TILE)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :])  # no mask: assumes full tiles
    r = tl.load(r_ptr + rm[:, None] * srm + rn[None, :])
    gamma = tl.load(g_ptr + rn)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :], x * gamma[None, :] + r)


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 128) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(m, n, generator=g)
    gamma = torch.rand(n, generator=g) + 0.5
    r = torch.randn(m, n, generator=g)
    return x.to(device), gamma.to(device), r.to(device)


def kernel(x: torch.Tensor, gamma: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    x, gamma, r = x.contiguous(), gamma.contiguous(), r.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, TILE), triton.cdiv(N, TILE))
    residual_scale[grid](x, gamma, r, out, x.stride(0), r.stride(0), out.stride(0), TILE=TILE)
    return out


def reference(x: torch.Tensor, gamma: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    return x * gamma[None, :] + r
