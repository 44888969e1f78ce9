# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=resource-over-every-gpu
# A float16 matmul (float32 accumulate, float16 output) with a 256x128 output tile, a K step of 64 and
# num_stages=5.  It is correct (the interpreter's result matches the reference), but the software
# pipeline keeps 5 stages of the A and B tiles in shared memory:
# 5 * (256*64 + 64*128) * 2 bytes = 240 KiB (245760 bytes), over the H100's 227 KiB per-block limit
# (232448 bytes).  Compiled for sm_90 as launched (unit strides, 16-divisible sizes and pointers),
# metadata.shared is 245760, and the first launch on an H100 raises OutOfResources ("out of resource:
# shared memory, Required: 245760, Hardware limit: 232448").  Only the compile for the GPU target shows
# it; num_stages=4 (196608 bytes) fits.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(m=256, n=256, k=256)]
TOLERANCE = dict(atol=5e-2, rtol=1e-2)  # float16 output of a K=256 float32-accumulated product

BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES = 256, 128, 64, 5


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
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 256, n: int = 256, k: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.randn(m, k, generator=g) / 4).to(torch.float16).to(device)
    b = (torch.randn(k, n, generator=g) / 4).to(torch.float16).to(device)
    return a, b


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 num_warps=8, num_stages=NUM_STAGES)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float()).to(torch.float16)
