# kdiag corpus kernel — expected: verdict=pass, category=none
# A batched matmul C[b] = A[b] @ B[b] of float16 inputs with tl.dot accumulating in float32 and one
# rounding to float16 at the store, as torch.bmm returns float16.  The batch is grid axis 2 and every
# tensor is addressed through its own three strides; the declared B is handed over as a transposed
# view (a (batch, n, k) buffer viewed as (batch, k, n): B[b].stride() == (1, k)), the layout a
# "q @ k^T" caller passes, and it is read correctly.  M, N and K tails are masked (other=0.0 adds
# nothing in the K tail); 32x32x32 tiles (tl.dot's K >= 16 holds) fit easily in shared memory.  The
# reference multiplies the same float16 values in float32 and rounds once: the two differ by the
# order of the additions only (at most 1 ULP of float16).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
SIZES = [dict(batch=4, m=64, n=64, k=64), dict(batch=3, m=50, n=40, k=72)]


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_b = tl.program_id(2)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    a_base = a_ptr + pid_b.to(tl.int64) * sab
    b_base = b_ptr + pid_b.to(tl.int64) * sbb
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_base + offs_m[:, None] * sam + offs_k[None, :] * sak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_base + offs_k[:, None] * sbk + offs_n[None, :] * sbn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c = c_ptr + pid_b.to(tl.int64) * scb + offs_m[:, None] * scm + offs_n[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def make_inputs(device: str, seed: int = 0, batch: int = 4, m: int = 64, n: int = 64, k: int = 64):
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.randn(batch, m, k, generator=g) / 4).to(torch.float16)
    bt = (torch.randn(batch, n, k, generator=g) / 4).to(torch.float16)
    return a.to(device), bt.to(device).transpose(1, 2)  # b: (batch, k, n), strides (n*k, 1, k)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), B)
    bmm[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
              c.stride(0), c.stride(1), c.stride(2), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a.float(), b.float()).to(a.dtype)
