# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=resource-over-every-gpu
# A float16 matmul with a 128x128x128 tile and num_stages=4: correct (the interpreter's result
# matches the reference), but its software pipeline keeps 4 stages of A and B tiles in shared
# memory, 4 * (128*128 + 128*128) * 2 bytes = 256 KiB, over the H100's 227 KiB opt-in limit per
# block (232448 bytes), which is also B200's and the largest any GPU has.  Compiled for sm_90, metadata.shared is 262144, and the first launch on an
# H100 raises OutOfResources ("out of resource: shared memory, Required: 262144, Hardware limit:
# 232448").  No GPU holds the config at its declared size, so it is the kernel's (shared/TAXONOMY.md:
# over every GPU's limit); num_stages=2 fits.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(m=128, n=128, k=256)]
TOLERANCE = dict(atol=5e-2, rtol=1e-2)  # float16 output of a K=256 float32-accumulated product

BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES = 128, 128, 128, 4


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))


def make_inputs(device: str, seed: int = 0, m: int = 128, n: int = 128, k: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.randn(m, k, generator=g) / 4).to(torch.float16).to(device)
    b = (torch.randn(k, n, generator=g) / 4).to(torch.float16).to(device)
    return a, b


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
    matmul[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8, num_stages=NUM_STAGES)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float()).to(torch.float16)
