# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Cross-attention (decoder queries over encoder keys), out = softmax(q k^T / sqrt(D)) v, with q of shape
# (B, H, Lq, D) and k, v of shape (B, H, Lk, D): a flash-style kernel, one program per (batch*head,
# block of 16 queries), walking the keys in blocks of 16 with a running max and sum (tl.dot in float32,
# input_precision="ieee").  The kernel is correct for any key length it is given, but the wrapper, first
# written for self-attention, passes seq_k = q.shape[2]: the key loop and its mask stop at Lq.  At the
# declared 2x2x64x64 (Lq == Lk) it matches to ~4e-7.  At the declared Lq=48, Lk=80 the keys 48..79 are
# never seen: every query row is a softmax over the first 48 keys only, so every output element is wrong
# (6144 of 6144, max abs ~1.1 on reference outputs up to ~0.8), with no tail, block or transposition pattern; the
# output is finite, fully written, and every load stays inside k and v (the mask is tighter than the
# tensors).  With Lq > Lk the same bug would read k and v past their ends.
from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 16
SIZES = [dict(b=2, h=2, lq=64, lk=64, d=32), dict(b=2, h=2, lq=48, lk=80, d=32)]


@triton.jit
def cross_attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, H, seq_q, seq_k, sm_scale,
                   sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd, sob, soh, som, sod,
                   D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    bh = tl.program_id(0)
    b = bh // H
    h = bh % H
    offs_m = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    mmask = offs_m < seq_q
    q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=mmask[:, None], other=0.0).to(tl.float32)
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for n0 in range(0, seq_k, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        nmask = offs_n < seq_k
        k = tl.load(k_ptr + b * skb + h * skh + offs_n[:, None] * skn + offs_d[None, :] * skd,
                    mask=nmask[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + b * svb + h * svh + offs_n[:, None] * svn + offs_d[None, :] * svd,
                    mask=nmask[:, None], other=0.0).to(tl.float32)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
        s = tl.where(nmask[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + b * sob + h * soh + offs_m[:, None] * som + offs_d[None, :] * sod,
             out.to(o_ptr.dtype.element_ty), mask=mmask[:, None])


def make_inputs(device: str, seed: int = 0, b: int = 2, h: int = 2, lq: int = 48, lk: int = 80,
                d: int = 32) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    q = torch.randn(b, h, lq, d, generator=g)
    k = torch.randn(b, h, lk, d, generator=g)
    v = torch.randn(b, h, lk, d, generator=g)
    return q.to(device), k.to(device), v.to(device)


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, Lq, D = q.shape
    seq_k = q.shape[2]  # the key length, as the self-attention version had it
    out = torch.empty((B, H, Lq, D), dtype=q.dtype, device=q.device)
    grid = (B * H, triton.cdiv(Lq, BLOCK_M))
    cross_attn_fwd[grid](q, k, v, out, H, Lq, seq_k, 1.0 / math.sqrt(D),
                         *q.stride(), *k.stride(), *v.stride(), *out.stride(),
                         D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(q.shape[-1])
    return (torch.softmax(s, dim=-1) @ v.float()).to(q.dtype)
