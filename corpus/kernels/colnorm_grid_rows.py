# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=square-shape-assumption
# Column L2 normalisation, out[:, c] = x[:, c] / max(||x[:, c]||_2, eps) (F.normalize(x, dim=0)), with
# one program per block of 32 columns walking down the rows in chunks of 64 (a masked tail on both
# axes, both strides honoured).  The launch grid is computed from the wrong axis: cdiv(M, 32) programs
# (one per block of ROWS) where cdiv(N, 32) column blocks are needed.  Every declared size is square
# (the kernel was written for square Gram/covariance matrices: 128x128 and 100x100), where the two
# counts agree and the output is right to a few ULP (max abs ~1e-7).  A size probe that makes the
# matrix wider than tall (e.g. 100x300) launches too few programs: columns 128.. (whole column blocks)
# are never written and keep what torch.empty left there (a sentinel shows them); a taller matrix
# (300x100) launches extra programs whose lanes are all masked off and is still right.  No access is
# out of bounds at any shape.  The kernel assumes M == N (or M >= N); cdiv(N, BLOCK_N) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 64, 32
EPS = 1e-12
SIZES = [dict(m=128, n=128), dict(m=100, n=100)]


@triton.jit
def col_normalize(x_ptr, out_ptr, M, N, sxm, sxn, som, son, eps, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    nmask = rn < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rm = m0 + tl.arange(0, BLOCK_M)
        v = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=(rm[:, None] < M) & nmask[None, :], other=0.0)
        acc += tl.sum(v * v, axis=0)
    inv = 1.0 / tl.maximum(tl.sqrt(acc), eps)
    for m0 in range(0, M, BLOCK_M):
        rm = m0 + tl.arange(0, BLOCK_M)
        msk = (rm[:, None] < M) & nmask[None, :]
        v = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=msk, other=0.0)
        tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, v * inv[None, :], mask=msk)


def make_inputs(device: str, seed: int = 0, m: int = 128, n: int = 128) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(m, n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, BLOCK_N),)  # should be triton.cdiv(N, BLOCK_N): one program per column block
    col_normalize[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), EPS,
                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.normalize(x, dim=0, eps=EPS)
