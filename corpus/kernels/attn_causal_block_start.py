# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# Causal single-head self-attention, out[i] = sum_{j <= i} softmax_j(q_i . k_j / sqrt(d)) v_j, as a
# flash-attention style kernel: one program per block of 16 queries walks the key blocks of 16 up to and
# including the diagonal block, with an online softmax (running max, denominator and accumulator all
# rescaled) in float32 and tl.dot at input_precision="ieee".  The causal mask inside the diagonal block
# compares each key index with the START of the query block, `offs_n <= start_m`, where it must compare
# with each query's own index, `offs_n[None, :] <= offs_m[:, None]`.  Query i then attends to keys
# 0..start_m, i.e. it misses keys start_m+1..i: the first query of every block (i % 16 == 0) is exactly
# right and the other 15 rows of each block are wrong (they average over fewer keys), a pattern periodic
# with the query block: 60 of 64 query rows wrong at t=64 (1918 of 2048 elements), 42 of 45 at t=45
# (1007 of 1080; partial last block), rows 0, 16, 32, 48 right, max abs ~2.4 on outputs up to ~2.2; every row keeps at least key 0, so nothing is NaN; the query, key and
# head-dim tails are masked, nothing is out of bounds, every element is written.
from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 16
SIZES = [dict(t=64, d=32), dict(t=45, d=24)]


@triton.jit
def causal_attn(q_ptr, k_ptr, v_ptr, o_ptr, T, D, sq, sk, sv, so, scale,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d[None, :] < D
    q = tl.load(q_ptr + offs_m[:, None] * sq + offs_d[None, :], mask=(offs_m[:, None] < T) & dmask, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), tl.float32)
    for start_n in range(0, start_m + BLOCK_M, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kv_mask = (offs_n[:, None] < T) & dmask
        k = tl.load(k_ptr + offs_n[:, None] * sk + offs_d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + offs_n[:, None] * sv + offs_d[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        causal = offs_n[None, :] <= start_m  # bug: offs_n[None, :] <= offs_m[:, None]
        s = tl.where(causal & (offs_n[None, :] < T), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * so + offs_d[None, :], out, mask=(offs_m[:, None] < T) & dmask)


def make_inputs(device: str, seed: int = 0, t: int = 64, d: int = 32) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    q, k, v = (torch.randn(t, d, generator=g) for _ in range(3))
    return q.to(device), k.to(device), v.to(device)


def kernel(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    q, k, v = (z.to(torch.float32).contiguous() for z in (q, k, v))
    T, D = q.shape
    o = torch.empty((T, D), dtype=torch.float32, device=q.device)
    causal_attn[(triton.cdiv(T, BLOCK_M),)](q, k, v, o, T, D, q.stride(0), k.stride(0), v.stride(0), o.stride(0),
                                           1.0 / math.sqrt(D), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                           BLOCK_D=max(16, triton.next_power_of_2(D)))
    return o


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    q, k, v = (z.to(torch.float32) for z in (q, k, v))
    T, D = q.shape
    s = (q @ k.T) / math.sqrt(D)
    s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v
