# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# Adds a per-batch key-padding bias to attention scores: out[b, i, j] = s[b, i, j] + kbias[b, j], over
# a 3-D (B, M, N) tensor in 16x32 tiles with the batch on grid axis 2.  The row and column strides
# are passed and honoured, but the batch offset into s is computed as b * M * M (written for square
# M x M score matrices) instead of b * s.stride(0) (= M * N here).  The declared shapes are not
# square (M < N), so batch 0 is exactly right and every later batch b reads the scores of a block
# that starts (N - M) * M * b elements too early: batches 1.. are wrong in 85-95% of their elements
# (the rest are mostly the padded keys, where -1e4 plus a wrong score still lies within rtol of -1e4
# plus the right one), while the bias term and the output are addressed right.  All addresses
# stay inside s (b*M*M + M*N <= B*M*N when M <= N): no out-of-bounds lane, every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 32
SIZES = [dict(b=4, m=48, n=64), dict(b=3, m=20, n=50)]


@triton.jit
def add_key_bias(s_ptr, kb_ptr, out_ptr, M, N, ssm, ssn, skb, skn, sob, som, son,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    b = tl.program_id(2)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    s = tl.load(s_ptr + b * M * M + rm[:, None] * ssm + rn[None, :] * ssn, mask=m)  # bug: b * stride(0)
    kb = tl.load(kb_ptr + b * skb + rn * skn, mask=rn < N)
    tl.store(out_ptr + b * sob + rm[:, None] * som + rn[None, :] * son, s + kb[None, :], mask=m)


def make_inputs(device: str, seed: int = 0, b: int = 4, m: int = 48, n: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    s = torch.randn(b, m, n, generator=g)
    kb = torch.where(torch.rand(b, n, generator=g) < 0.2, -1e4, 0.0)  # padded keys get -1e4
    return s.to(device), kb.to(device)


def kernel(s: torch.Tensor, kb: torch.Tensor) -> torch.Tensor:
    B, M, N = s.shape
    out = torch.empty((B, M, N), dtype=s.dtype, device=s.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), B)
    add_key_bias[grid](s, kb, out, M, N, s.stride(1), s.stride(2), kb.stride(0), kb.stride(1),
                       out.stride(0), out.stride(1), out.stride(2), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(s: torch.Tensor, kb: torch.Tensor) -> torch.Tensor:
    return s + kb[:, None, :]
