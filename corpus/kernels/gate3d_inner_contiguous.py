# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=noncontiguous-input
# A per-batch channel gate on a 3-D activation, out[b, i, j] = x[b, i, j] * sigmoid(g[b, j]) (a
# squeeze-and-excitation style rescale over (batch, tokens, channels)), into a new contiguous output,
# in 16x64 tiles on a (batch, row-tile, column-tile) grid with both tails masked.  The kernel is given
# x's batch stride and uses it, but addresses the last two dimensions as i * N + j: it assumes each
# batch's (M, N) matrix is dense and row-major.  The gate g is read through both of its strides.  Every
# declared size is a freshly made contiguous tensor (2x50x200 with tails on both axes, 3x64x128), so
# every declared size matches to a few ULP (tl.sigmoid against torch.sigmoid).  A probe that passes a
# non-contiguous x breaks it: a view with the last two dimensions transposed (a (B, N, M) tensor seen
# as (B, M, N)), or a column slice of a wider tensor (row stride > N), is read as if dense: nearly every
# element wrong (the first row of each batch right in the sliced view), with every read still inside
# x's storage.  A view that only steps the batch (x[::2]) is honoured.  Passing x.stride(1) and
# x.stride(2) (or calling .contiguous()) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 64
SIZES = [dict(b=2, m=50, n=200), dict(b=3, m=64, n=128)]


@triton.jit
def gate3d(x_ptr, g_ptr, out_ptr, M, N, sxb, sgb, sgn, sob, som, son,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    i = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    j = tl.program_id(2) * BLOCK_N + tl.arange(0, BLOCK_N)
    mi = i < M
    mj = j < N
    m = mi[:, None] & mj[None, :]
    x = tl.load(x_ptr + b * sxb + i[:, None] * N + j[None, :], mask=m, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + b * sgb + j * sgn, mask=mj, other=0.0).to(tl.float32)
    y = x * tl.sigmoid(g)[None, :]
    tl.store(out_ptr + b * sob + i[:, None] * som + j[None, :] * son, y.to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, b: int = 2, m: int = 50, n: int = 200) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(b, m, n, generator=gen)
    g = torch.randn(b, n, generator=gen)
    return x.to(device), g.to(device)


def kernel(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    B, M, N = x.shape
    out = torch.empty((B, M, N), dtype=x.dtype, device=x.device)
    grid = (B, triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gate3d[grid](x, g, out, M, N, x.stride(0), g.stride(0), g.stride(1), *out.stride(),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return (x.float() * torch.sigmoid(g.float())[:, None, :]).to(x.dtype)
