# kdiag corpus kernel — expected: verdict=pass, category=none
# Splits a packed (T, 3*D) qkv projection into q, k and v, as attention code does: q is scaled by
# 1/sqrt(D) in a Triton kernel into a new tensor, while k and v are returned as they are, as views of
# the input (qkv[:, D:2D] and qkv[:, 2D:]: column slices, not contiguous, sharing the input's
# storage).  The reference returns the same three things (its k and v are views too).  Nothing is
# written into the input; returning a view of an input is fine here, and the values of all three
# outputs equal the reference's (q to one rounding of a multiply).
from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

BLOCK_T, BLOCK_D = 16, 64
SIZES = [dict(t=128, d=64), dict(t=37, d=80)]


@triton.jit
def scale_q(qkv_ptr, q_ptr, T, D, s_t, s_c, s_qt, scale, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    rt = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    rd = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    m = (rt[:, None] < T) & (rd[None, :] < D)
    q = tl.load(qkv_ptr + rt[:, None] * s_t + rd[None, :] * s_c, mask=m)
    tl.store(q_ptr + rt[:, None] * s_qt + rd[None, :], q * scale, mask=m)


def make_inputs(device: str, seed: int = 0, t: int = 128, d: int = 64) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(t, 3 * d, generator=g).to(device),)


def kernel(qkv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    T, three_d = qkv.shape
    D = three_d // 3
    q = torch.empty((T, D), dtype=qkv.dtype, device=qkv.device)
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))
    scale_q[grid](qkv, q, T, D, qkv.stride(0), qkv.stride(1), q.stride(0), 1.0 / math.sqrt(D),
                  BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return q, qkv[:, D:2 * D], qkv[:, 2 * D:]  # k and v: views of the input, as in the reference


def reference(qkv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    q, k, v = qkv.split(qkv.shape[1] // 3, dim=1)
    return q * (1.0 / math.sqrt(q.shape[1])), k, v
