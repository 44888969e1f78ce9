# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Causal single-head self-attention, out[i] = sum_{j <= i} softmax_j(q_i . k_j / sqrt(d)) v_j, as a
# flash-attention style kernel (one program per 16 queries, key blocks of 16 up to the diagonal
# block, online softmax with the accumulator rescaled correctly).  The causal mask is written
# `offs_m[:, None] > offs_n[None, :]` where `>=` is meant: every query loses its own key (the
# diagonal), and query 0, which may only see key 0, sees no key at all.  As in the Triton tutorial
# the masked scores get -1.0e6 added instead of -inf, so nothing becomes NaN: row 0 has only masked
# scores, and its softmax is taken over all 16 keys of its block anyway (scores of ~-1e6, the
# differences kept at float32's spacing there), where the reference returns v[0]; every other
# row is the softmax over keys 0..i-1 instead of 0..i.  Nearly every element is wrong (2034 of 2048
# at t=64, 1433 of 1440 at t=45, max abs ~2-4), all values finite; nothing is out of bounds (query
# and key tails masked, lanes past t load 0), every element is written.  With `>=` it matches.
from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 16
SIZES = [dict(t=64, d=32), dict(t=45, d=32)]


@triton.jit
def causal_attn(q_ptr, k_ptr, v_ptr, o_ptr, T, D, sm_scale, sqt, sqd, skt, skd, svt, svd, sot, sod,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < D
    q = tl.load(q_ptr + offs_m[:, None] * sqt + offs_d[None, :] * sqd,
                mask=(offs_m[:, None] < T) & mask_d[None, :], other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), dtype=tl.float32)
    for start_n in range(0, start_m + BLOCK_M, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kt = tl.load(k_ptr + offs_n[None, :] * skt + offs_d[:, None] * skd,
                     mask=(offs_n[None, :] < T) & mask_d[:, None], other=0.0)
        v = tl.load(v_ptr + offs_n[:, None] * svt + offs_d[None, :] * svd,
                    mask=(offs_n[:, None] < T) & mask_d[None, :], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * sm_scale
        causal = offs_m[:, None] > offs_n[None, :]  # bug: >= (a query attends to itself)
        s = s + tl.where(causal & (offs_n[None, :] < T), 0.0, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    tl.store(o_ptr + offs_m[:, None] * sot + offs_d[None, :] * sod, acc / l_i[:, None],
             mask=(offs_m[:, None] < T) & mask_d[None, :])


def make_inputs(device: str, seed: int = 0, t: int = 64, d: int = 32):
    g = torch.Generator(device="cpu").manual_seed(seed)
    q = torch.randn(t, d, generator=g)
    k = torch.randn(t, d, generator=g)
    v = torch.randn(t, d, generator=g)
    return q.to(device), k.to(device), v.to(device)


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    T, D = q.shape
    o = torch.empty((T, D), dtype=torch.float32, device=q.device)
    block_d = max(16, triton.next_power_of_2(D))
    causal_attn[(triton.cdiv(T, BLOCK_M),)](
        q, k, v, o, T, D, 1.0 / math.sqrt(D),
        q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1), o.stride(0), o.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=block_d)
    return o


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    T, D = q.shape
    s = (q.float() @ k.float().T) / math.sqrt(D)
    keep = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, dim=-1) @ v.float()
