# kdiag corpus kernel — expected: verdict=pass, category=none
# A 2-D tiled out = alpha * x + beta * y over (M, N) matrices, 32x64 tiles, with every load and
# store masked in both dimensions and each tensor addressed through its own two strides (x, y and
# out may each have any layout).  Shapes that are not multiples of the tile, transposed views and
# row-padded slices all give the exact result (one multiply-add per element, as torch computes it).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 32, 64
SIZES = [dict(m=128, n=256), dict(m=77, n=130), dict(m=1, n=3)]


@triton.jit
def affine2d(x_ptr, y_ptr, out_ptr, M, N, sxm, sxn, sym, syn, som, son, alpha, beta,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=m)
    y = tl.load(y_ptr + rm[:, None] * sym + rn[None, :] * syn, mask=m)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, alpha * x + beta * y, mask=m)


def make_inputs(device: str, seed: int = 0, m: int = 128, n: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(m, n, generator=g).to(device), torch.randn(m, n, generator=g).to(device)


def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    affine2d[grid](x, y, out, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                   out.stride(0), out.stride(1), 0.75, -1.5, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return 0.75 * x + (-1.5) * y
