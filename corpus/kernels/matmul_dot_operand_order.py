# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A tiled matmul C = A @ B whose inner product is written tl.dot(b, a) instead of tl.dot(a, b).
# All three tile sizes are 32, so the swapped operands still have compatible shapes ((32x32) @
# (32x32)) and the kernel compiles and runs; each step multiplies B[k-tile, n-tile] by A[m-tile,
# k-tile], a product that has nothing to do with C's tile.  Every element of the output is wrong
# (no pattern of transposition, no unwritten part, nothing out of bounds); the declared square shapes
# hide the shape mismatch that rectangular tiles would have raised.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 32
SIZES = [dict(m=64, n=64, k=64), dict(m=96, n=64, k=128)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, BLOCK: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        rk = k0 + tl.arange(0, BLOCK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(b, a)  # bug: tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 64, k: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = (torch.randn(m, k, generator=g) / 4).to(torch.float16).to(device)
    b = (torch.randn(k, n, generator=g) / 4).to(torch.float16).to(device)
    return a, b


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))
    matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BLOCK=BLOCK)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.float() @ b.float()
