# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# A split-K matmul, C = A @ B (float32, input_precision="ieee"), for a skinny problem with a long K: the
# K dimension is split over SPLIT_K=4 programs per 32x32 output tile (grid axis 2), each computing a
# partial sum over its quarter of K.  The partials are combined in a zeroed C with a plain
# read-modify-write, `c = tl.load(C); tl.store(C, c + acc)`, where tl.atomic_add is required: the four
# programs of a tile load, add and store the same 1024 elements with nothing ordering them.  On a GPU
# they run concurrently, so a program can read C before another's store lands and overwrite it: lost
# partial sums, a result that varies between runs.  Under Triton's interpreter the programs run one
# after the other, so every read sees the previous program's store and the values come out RIGHT at
# every declared size; what shows without a GPU is the access pattern: every element of C is loaded
# and stored by SPLIT_K different programs (pid_k = 0..3), a store of one program to an element another
# program also stores (and reads) with no atomic.  Nothing is out of bounds (the M, N and K tails are
# masked).  tl.atomic_add(C, acc) in place of the load/store fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM, BN, BK = 32, 32, 32
SPLIT_K = 4
SIZES = [dict(m=64, n=64, k=1024), dict(m=40, n=72, k=600)]


@triton.jit
def matmul_splitk(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, k_per_split,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    k_lo = pid_k * k_per_split
    k_hi = tl.minimum(k_lo + k_per_split, K)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < k_hi), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < k_hi) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    cmask = (rm[:, None] < M) & (rn[None, :] < N)
    c = tl.load(c_ptrs, mask=cmask, other=0.0)
    tl.store(c_ptrs, c + acc, mask=cmask)  # bug: tl.atomic_add(c_ptrs, acc, mask=cmask)


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 64, k: int = 1024) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(m, k, generator=g).to(device), torch.randn(k, n, generator=g).to(device)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    k_per_split = triton.cdiv(triton.cdiv(K, SPLIT_K), BK) * BK
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), SPLIT_K)
    matmul_splitk[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), k_per_split, BM=BM, BN=BN, BK=BK)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.to(torch.float32) @ b.to(torch.float32)
