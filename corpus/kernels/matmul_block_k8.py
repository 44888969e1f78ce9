# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=language-misuse
# A tiled float16 matmul with 64x64 output tiles and a K step of BLOCK_K=8 (chosen to keep the
# register tiles small).  The interpreter computes it, and the result matches the reference, but
# Triton's compiler requires K >= 16 for tl.dot on NVIDIA targets: compiling the same launch for the
# target GPU fails with a CompilationError at the tl.dot line ("Input shapes should have M >= 1,
# N >= 1 and K >= 16").
# The kernel would never run on a GPU; BLOCK_K=16 or 32 fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 8
SIZES = [dict(m=128, n=64, k=64)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)  # K tile of 8: rejected by the compiler for NVIDIA GPUs
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 128, n: int = 64, k: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.randn(m, k, generator=g) / 4).to(torch.float16).to(device)
    b = (torch.randn(k, n, generator=g) / 4).to(torch.float16).to(device)
    return a, b


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
