# kdiag corpus kernel — expected: verdict=pass, category=none
# A 1-D convolution (cross-correlation, stride 1, no padding) of an (N, Cin, L) signal with an
# (Cout, Cin, KW) filter, as F.conv1d computes it, written as an implicit GEMM: for each sample the
# output tile out[co, l] (32 output channels x 32 positions) is a tl.dot of the filter viewed as a
# (Cout, Cin*KW) matrix with the unfolded windows U[r, l] = x[ci, l + kk] (r = ci*KW + kk), never
# materialised: each 32-wide step of the reduction index r is split into (ci, kk) with // and % and
# gathered straight from x.  The reduction (Cin*KW = 120 and 80: not multiples of 32), the channel
# and the position tails are all masked with other=0.0, every tensor is addressed through its own
# strides, and tl.dot takes float32 operands with input_precision="ieee" and accumulates in float32,
# so there is no TF32 rounding: the result differs from torch's by the order of the additions only
# (max abs ~1e-6).  Tiles of 32x32x32 float32 compile for sm_90 well inside shared memory.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_CO, BLOCK_L, BLOCK_R = 32, 32, 32
SIZES = [dict(n=2, cin=24, cout=48, length=200, kw=5), dict(n=3, cin=16, cout=20, length=77, kw=5)]


@triton.jit
def conv1d_gemm(x_ptr, w_ptr, out_ptr, CIN, COUT, LOUT, KW, sxn, sxc, sxl, swo, swc, swk, son, soc, sol,
                BLOCK_CO: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_R: tl.constexpr):
    n = tl.program_id(2)
    co = tl.program_id(0) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    lo = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    R = CIN * KW
    acc = tl.zeros((BLOCK_CO, BLOCK_L), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        ci = r // KW
        kk = r % KW
        rmask = r < R
        w = tl.load(w_ptr + co[:, None] * swo + ci[None, :] * swc + kk[None, :] * swk,
                    mask=(co[:, None] < COUT) & rmask[None, :], other=0.0)
        u = tl.load(x_ptr + n * sxn + ci[:, None] * sxc + (lo[None, :] + kk[:, None]) * sxl,
                    mask=rmask[:, None] & (lo[None, :] < LOUT), other=0.0)
        acc += tl.dot(w, u, input_precision="ieee")
    tl.store(out_ptr + n * son + co[:, None] * soc + lo[None, :] * sol, acc,
             mask=(co[:, None] < COUT) & (lo[None, :] < LOUT))


def make_inputs(device: str, seed: int = 0, n: int = 2, cin: int = 24, cout: int = 48, length: int = 200,
                kw: int = 5) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, cin, length, generator=g)
    w = torch.randn(cout, cin, kw, generator=g) / (cin * kw) ** 0.5
    return x.to(device), w.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    N, CIN, L = x.shape
    COUT, _, KW = w.shape
    LOUT = L - KW + 1
    out = torch.empty((N, COUT, LOUT), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(COUT, BLOCK_CO), triton.cdiv(LOUT, BLOCK_L), N)
    conv1d_gemm[grid](x, w, out, CIN, COUT, LOUT, KW, *x.stride(), *w.stride(), *out.stride(),
                      BLOCK_CO=BLOCK_CO, BLOCK_L=BLOCK_L, BLOCK_R=BLOCK_R)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.conv1d(x, w)
