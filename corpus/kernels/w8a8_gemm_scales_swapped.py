# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A W8A8 quantised linear layer, y[m, n] = (sum_k Aq[m, k] * Bq[k, n]) * sa[m] * sb[n], with int8
# activations Aq (M, K) carrying one float32 scale per token (sa, length M) and int8 weights Bq (K, N)
# carrying one scale per output channel (sb, length N): a tiled tl.dot of int8 tiles accumulating in
# int32 (32x32x32 tiles), dequantised in the epilogue in float32.  The kernel's signature takes
# (a_scale, b_scale) and loads a_scale at the tile's rows and b_scale at its columns, but the wrapper
# passes them in the other order (b's scale first): each output is multiplied by sb[m] * sa[n] instead
# of sa[m] * sb[n].  The declared problems are square in M and N (64x64, 80x80), so both scale reads stay
# inside their vectors: nothing is out of bounds; the diagonal (m == n) comes out exactly right and every
# other element is wrong by the ratio (sb[m] sa[n]) / (sa[m] sb[n]) (the activation scales are ~0.01..0.03,
# the weight scales ~0.001..0.005): 4031 of 4096 elements at 64x64x256, 6317 of 6400 at 80x80x96, no tail, block or
# transposition pattern (the output is not the reference transposed).  The accumulation is exact (int32,
# |sums| < 2^22).  A non-square probe would also read past the end of the shorter scale vector.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM, BN, BK = 32, 32, 32
SIZES = [dict(m=64, n=64, k=256), dict(m=80, n=80, k=96)]


@triton.jit
def w8a8_gemm(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    sa = tl.load(a_scale_ptr + rm, mask=rm < M, other=0.0)
    sb = tl.load(b_scale_ptr + rn, mask=rn < N, other=0.0)
    y = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, y, mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 64, k: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    aq = torch.randint(-127, 128, (m, k), generator=g).to(torch.int8)
    bq = torch.randint(-127, 128, (k, n), generator=g).to(torch.int8)
    sa = 0.01 + 0.02 * torch.rand(m, generator=g)
    sb = 0.001 + 0.004 * torch.rand(n, generator=g)
    return aq.to(device), bq.to(device), sa.to(device), sb.to(device)


def kernel(aq: torch.Tensor, bq: torch.Tensor, sa: torch.Tensor, sb: torch.Tensor) -> torch.Tensor:
    M, K = aq.shape
    N = bq.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=aq.device)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    w8a8_gemm[grid](aq, bq, c, sb, sa, M, N, K,  # bug: (sa, sb)
                    aq.stride(0), aq.stride(1), bq.stride(0), bq.stride(1), c.stride(0), c.stride(1),
                    BM=BM, BN=BN, BK=BK)
    return c


def reference(aq: torch.Tensor, bq: torch.Tensor, sa: torch.Tensor, sb: torch.Tensor) -> torch.Tensor:
    acc = (aq.to(torch.int64) @ bq.to(torch.int64)).to(torch.float32)
    return acc * sa[:, None].to(torch.float32) * sb[None, :].to(torch.float32)
