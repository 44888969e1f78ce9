# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# A tiled matmul C = A @ B of float16 inputs into float32, written after the Triton tutorial with
# pointer increments along K (a_ptrs += BLOCK_K * stride_ak, b_ptrs += BLOCK_K * stride_bk), and
# tl.dot accumulating in float32.  The loads mask the M and N tails but not the K tail (the tutorial's
# `offs_k < K - k * BLOCK_K` term is missing).  At the declared 64x64x128 K is a multiple of
# BLOCK_K=32 and the result is right.  At the declared 48x40x72 the last K step covers k = 64..95:
# for k >= 72 each row of A reads into the next row (the last row 24 elements past the end of A) and
# B reads 24 whole rows past its end (24*40 float16, 1920 bytes).  Those products are added to every
# element of C: with whatever memory follows B the output is wrong almost everywhere (a guard region
# filled with NaN makes every element NaN; memory that happened to hold zeros would make it right by
# chance).  The plain interpreter checks no bounds and reads that memory silently: there the wrong
# values (and a few hundred NaNs) changed from run to run, 1094..1920 of 1920 elements.  Bounds checks on the loads see
# reads past the end of a and b at that size, and none at 64x64x128.  Stores are masked: no write
# goes out of bounds.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
SIZES = [dict(m=64, n=64, k=128), dict(m=48, n=40, k=72)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * sam + offs_k[None, :] * sak
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_n[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)  # bug: & (offs_k[None, :] < K - k * BLOCK_K)
        b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)  # bug: & (offs_k[:, None] < K - k * BLOCK_K)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * sak
        b_ptrs += BLOCK_K * sbk
    tl.store(c_ptr + offs_m[:, None] * scm + offs_n[None, :] * scn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 64, k: int = 128):
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.randn(m, k, generator=g) / 4).to(torch.float16)
    b = (torch.randn(k, n, generator=g) / 4).to(torch.float16)
    return a.to(device), b.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.float() @ b.float()
