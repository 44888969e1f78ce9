# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A fused GEMM + GELU, y = gelu(a @ b) (a: (M, K), b: (K, N), exact erf GELU in the epilogue), as a
# tiled tl.dot matmul (32x32x32 tiles, float32 accumulation, input_precision="ieee").  The K loop is
# written `for k0 in range(0, N, BLOCK_K)`: its bound is N where it must be K, while the loads are
# masked against K.  Where N >= K (the declared 64x128x64) the extra iterations load nothing (masked,
# other=0.0) and the result is right to a few ULP, only slower.  Where N < K (the declared 64x64x256,
# an up-projection's transpose, a narrow output) the loop stops after N of the K reduction steps:
# every output is the GELU of a partial dot product (64 of 256 terms), wrong almost everywhere by
# O(1), with no index pattern, no tail, nothing unwritten; nothing is out of bounds (the loads stay
# masked against K, and only fewer of them run).
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
SIZES = [dict(m=64, n=128, k=64), dict(m=64, n=64, k=256)]


@triton.jit
def gemm_gelu(a_ptr, b_ptr, y_ptr, M, N, K, sam, sak, sbk, sbn, sym, syn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, N, BLOCK_K):  # bug: the reduction runs over K
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    y = 0.5 * acc * (1.0 + tl.erf(acc * 0.7071067811865476))
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, y, mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 128, k: int = 64) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(m, k, generator=g)
    b = torch.randn(k, n, generator=g) / k ** 0.5
    return a.to(device), b.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    y = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm_gelu[grid](a, b, y, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                    y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.gelu(a @ b)
