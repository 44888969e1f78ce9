# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A linear layer, y = a @ w + bias (a: (M, K), w: (K, N), bias: (N,)), as a tiled tl.dot matmul
# (32x32x32 tiles, float32 accumulation, input_precision="ieee") with the bias added in the epilogue.
# The bias is loaded with the ROW offsets of the tile (bias_ptr + rm) and then broadcast along the
# columns (bias[None, :]): the square 32x32 tile makes the shapes agree, so it compiles and runs, but
# column j of tile (pid_m, pid_n) receives bias[pid_m*32 + j] instead of bias[pid_n*32 + j].  Only the
# diagonal tiles (pid_m == pid_n) are right: at 64x128 (K=64) the tiles (0,0) and (1,1), 2048 of 8192
# elements; at 48x80 (K=40) tile (0,0) and the 16 valid rows of tile (1,1).  Every other element is off
# by the difference of two bias values, in whole 32-column blocks.  The bias load is masked with
# rm < N, so with M <= N (both declared sizes) every read is inside bias; the matmul part is right
# (M, N and K tails masked); every element is written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
SIZES = [dict(m=64, n=128, k=64), dict(m=48, n=80, k=40)]


@triton.jit
def linear_bias(a_ptr, w_ptr, bias_ptr, y_ptr, M, N, K, sam, sak, swk, swn, sym, syn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + kk[:, None] * swk + rn[None, :] * swn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    bias = tl.load(bias_ptr + rm, mask=rm < N, other=0.0)  # bug: the bias is per column: bias_ptr + rn
    acc += bias[None, :]
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 128, k: int = 64) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(m, k, generator=g)
    w = torch.randn(k, n, generator=g) / k ** 0.5
    bias = torch.randn(n, generator=g)
    return a.to(device), w.to(device), bias.to(device)


def kernel(a: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = w.shape[1]
    y = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    linear_bias[grid](a, w, bias, y, M, N, K, a.stride(0), a.stride(1), w.stride(0), w.stride(1),
                      y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y


def reference(a: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return a @ w + bias
