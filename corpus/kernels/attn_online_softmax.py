# kdiag corpus kernel — expected: verdict=pass, category=none
# Single-head attention, out = softmax(q @ k^T / sqrt(d)) @ v, written as a flash-attention style
# kernel: one program per block of 16 queries walks the keys in blocks of 32, keeping a running row
# maximum m, a running denominator l and an output accumulator acc in float32.  When a key block
# raises the maximum, both l and acc are multiplied by alpha = exp(m_old - m_new) before the block's
# contribution is added, so the result equals a softmax over the whole row.  Key lanes past n get a
# score of -inf (exp gives 0), the first key block always holds a real key (so m is finite after
# it), the query and head-dim tails are masked, every stride is honoured, and both tl.dot calls use
# input_precision="ieee" (no TF32 rounding of the float32 operands).  Against the float32 reference
# the only difference is the order of the additions: a few ULP, within the default tolerance.
from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 32
SIZES = [dict(m=64, n=128, d=32), dict(m=40, n=100, d=24)]


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, M, N, D, sm_scale,
             sqm, sqd, skn, skd, svn, svd, som, sod,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    mask_m = offs_m < M
    mask_d = offs_d < D
    q = tl.load(q_ptr + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=mask_m[:, None] & mask_d[None, :], other=0.0).to(tl.float32)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        mask_n = offs_n < N
        kt = tl.load(k_ptr + offs_n[None, :] * skn + offs_d[:, None] * skd,
                     mask=mask_n[None, :] & mask_d[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + offs_n[:, None] * svn + offs_d[None, :] * svd,
                    mask=mask_n[:, None] & mask_d[None, :], other=0.0).to(tl.float32)
        s = tl.dot(q, kt, input_precision="ieee") * sm_scale
        s = tl.where(mask_n[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * som + offs_d[None, :] * sod, out.to(o_ptr.dtype.element_ty),
             mask=mask_m[:, None] & mask_d[None, :])


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 128, d: int = 32):
    g = torch.Generator(device="cpu").manual_seed(seed)
    q = torch.randn(m, d, generator=g) * 1.5
    k = torch.randn(n, d, generator=g) * 1.5
    v = torch.randn(n, d, generator=g)
    return q.to(device), k.to(device), v.to(device)


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    M, D = q.shape
    N = k.shape[0]
    o = torch.empty((M, D), dtype=q.dtype, device=q.device)
    block_d = max(16, triton.next_power_of_2(D))
    attn_fwd[(triton.cdiv(M, BLOCK_M),)](
        q, k, v, o, M, N, D, 1.0 / math.sqrt(D),
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1), o.stride(0), o.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=block_d)
    return o


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    s = (q.float() @ k.float().T) / math.sqrt(q.shape[1])
    return (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)
