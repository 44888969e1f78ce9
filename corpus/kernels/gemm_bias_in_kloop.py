# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A linear layer, C = A @ B + bias[None, :], tiled 32x32 with a K loop in steps of 32 (tl.dot in float32,
# input_precision="ieee", float32 accumulator).  The bias add was moved into the K loop when the
# epilogue was fused (acc = tl.dot(a, b, acc) + bias), so it is added once per K step: cdiv(K, 32)
# times instead of once.  Every output C[m, n] is too large by (cdiv(K, 32) - 1) * bias[n]: at the
# declared 64x96x128 (4 K steps) by 3 * bias[n], at 50x70x96 (3 steps) by 2 * bias[n]: the error is
# constant down each column and proportional to that column's bias (bias ~ randn * 0.5): every element
# is wrong (6144 of 6144, 3500 of 3500), max abs 4.0 and 2.4 on outputs up to ~43; C minus the
# reference minus (steps - 1) * bias is ~1e-5 (float32 summation order).  A problem with K <= 32 (one step) would pass.  The M, N and K tails are masked (50x70x96:
# partial tiles on M and N), every access is in bounds and every element written; compiles for sm_90.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
SIZES = [dict(m=64, n=96, k=128), dict(m=50, n=70, k=96)]


@triton.jit
def linear_bias(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee") + bias[None, :]
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 96, k: int = 128) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(m, k, generator=g)
    b = torch.randn(k, n, generator=g)
    bias = torch.randn(n, generator=g) * 0.5
    return a.to(device), b.to(device), bias.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    bias = bias.contiguous()
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    linear_bias[grid](a, b, bias, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                      c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c


def reference(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float() + bias.float()[None, :]).to(a.dtype)
