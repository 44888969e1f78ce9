# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-launch-grid
# A gated elementwise op over a 2-D activation, out = silu(x) * y (the SwiGLU product), in 32x32 tiles
# on a 2-D grid.  The wrapper launches grid = (cdiv(M, 32), cdiv(N, 32)), row blocks on axis 0, but the
# kernel reads pid_n = program_id(0) and pid_m = program_id(1): the axes are swapped between the grid
# and the index arithmetic.  At the square 64x64 size both axes have 2 blocks and the tiles are
# merely visited in another order: right to a few ULP (max abs 5e-7, tl.sigmoid against torch's
# silu).  At the declared 64x160 the grid is (2, 5): programs cover rows 0..159 (rows 64.. masked
# off) but only columns 0..63, so columns 64..159 are never written (6144 of 10240 elements keep what
# torch.empty left: a sentinel shows whole column blocks unwritten, a tail along axis 1 made of three
# full 32-wide blocks).  The written part is right; every access is masked and in bounds (a
# wider-than-tall shape loses column blocks, a taller one would lose row blocks the same way).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 32, 32
SIZES = [dict(m=64, n=64), dict(m=64, n=160)]


@triton.jit
def silu_mul(x_ptr, y_ptr, out_ptr, M, N, sxm, sxn, sym, syn, som, son,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0)  # bug: the grid puts the row blocks on axis 0
    pid_m = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    msk = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=msk, other=0.0)
    y = tl.load(y_ptr + rm[:, None] * sym + rn[None, :] * syn, mask=msk, other=0.0)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, x * tl.sigmoid(x) * y, mask=msk)


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 64) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(m, n, generator=g).to(device), torch.randn(m, n, generator=g).to(device)


def kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    silu_mul[grid](x, y, out, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                   out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x) * y
