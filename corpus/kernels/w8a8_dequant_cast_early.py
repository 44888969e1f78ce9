# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# A W8A8-style quantized linear layer with a bias epilogue, y = (A_q @ B_q) * (sa[m] * sb[n]) + bias[n],
# float16 output, where A_q and B_q hold int8 values (-127..127) stored as float16 (exact) and sa, sb
# are per-row / per-column dequantization scales (~1e-2 .. 2e-2).  tl.dot accumulates the integer
# products exactly in float32 (every partial sum stays below 2^24), but the epilogue converts the
# accumulator to float16 BEFORE applying the scales: `c = acc.to(tl.float16)` then c * scale + bias.
# The raw integer dot products at K=512 reach ~1e5-5e5 (sqrt(512) * 127^2 / 3 ~ 1.2e5 standard
# deviation), beyond float16's 65504, so those elements become +-Inf in the cast and stay Inf after the
# scaling, where the reference (scales applied in float32, one rounding to float16 at the end, values
# up to ~150) is finite.  At the declared sizes 4862 of 8192 (64x128x512) and 2858 of 4800 (40x120x512)
# outputs are +-Inf (computed, scattered over the matrix wherever |A_q @ B_q| rounds past 65504); the
# finite ones are right within float16 tolerance (max abs 0.016: they were rounded to float16 twice).
# Nothing is out of bounds (M, N, K tails masked), every element is written.  A GPU converts the same
# way (cvt.rn.f16.f32 gives Inf past 65504).  Scaling the float32 accumulator first fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM, BN, BK = 32, 32, 32
SIZES = [dict(m=64, n=128, k=512), dict(m=40, n=120, k=512)]


@triton.jit
def w8a8_linear(a_ptr, b_ptr, sa_ptr, sb_ptr, bias_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    sa = tl.load(sa_ptr + rm, mask=rm < M, other=0.0)
    sb = tl.load(sb_ptr + rn, mask=rn < N, other=0.0)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0)
    c = acc.to(tl.float16)  # cast before the dequantization scales: |acc| > 65504 becomes Inf
    out = c.to(tl.float32) * (sa[:, None] * sb[None, :]) + bias[None, :]
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, out.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 128, k: int = 512) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randint(-127, 128, (m, k), generator=g).to(torch.float16)
    b = torch.randint(-127, 128, (k, n), generator=g).to(torch.float16)
    sa = (torch.rand(m, generator=g) * 0.01 + 0.01)
    sb = (torch.rand(n, generator=g) * 0.01 + 0.01)
    bias = torch.randn(n, generator=g).to(torch.float16)
    return a.to(device), b.to(device), sa.to(device), sb.to(device), bias.to(device)


def kernel(a, b, sa, sb, bias) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    w8a8_linear[grid](a, b, sa.contiguous(), sb.contiguous(), bias.contiguous(), c, M, N, K,
                      a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK)
    return c


def reference(a, b, sa, sb, bias) -> torch.Tensor:
    acc = a.float() @ b.float()
    return (acc * (sa[:, None] * sb[None, :]) + bias.float()[None, :]).to(torch.float16)
