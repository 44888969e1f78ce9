# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A batched matmul C[i] = A[i] @ B[i] (A: (batch, M, K), B: (batch, K, N), float32) as a tiled tl.dot
# kernel with the batch on grid axis 2, 32x32x32 tiles, float32 accumulation and
# input_precision="ieee" (no TF32 rounding).  Every row and column stride is passed and used, but the
# pointer to B is advanced by the batch index times A's batch stride (stride_ab = M*K) instead of B's
# (stride_bb = K*N), a copy-paste slip in the batch offsets.  When M == N the two strides are equal and
# the result is right (the declared 3x40x40x24 passes to a few ULP, M/N/K tails masked).  At the
# declared 4x32x64x48 (M < N) batch i reads its B from element i*1536 of B, half-way into batch i/2's
# matrix: batch 0 is right, batches 1..3 are products with the wrong (shifted) B, wrong in every
# element (6144 of 8192: three whole batches), with errors up to ~46.  All reads stay inside B
# (3*1536 + 3072 <= 4*3072), every element is written, finite: only the comparison shows it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM = BN = BK = 32
SIZES = [dict(batch=4, m=32, n=64, k=48), dict(batch=3, m=40, n=40, k=24)]


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bi = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a_ptr + bi * sab
    b_base = b_ptr + bi * sab  # must be bi * sbb
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_base + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_base + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + bi * scb + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, batch: int = 4, m: int = 32, n: int = 64, k: int = 48) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(batch, m, k, generator=g)
    b = torch.randn(batch, k, n, generator=g)
    return a.to(device), b.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), B)
    bmm[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), BM=BM, BN=BN, BK=BK)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a, b)
