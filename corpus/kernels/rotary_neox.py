# kdiag corpus kernel — expected: verdict=pass, category=none
# Rotary position embedding (RoPE, the half-split "NeoX" layout) applied to a (tokens, heads, dim)
# query tensor: with x1 = x[..., :dim/2], x2 = x[..., dim/2:] and per-token angle tables cos, sin of
# shape (tokens, dim/2),
#   out[..., :dim/2] = x1 * cos - x2 * sin,   out[..., dim/2:] = x2 * cos + x1 * sin.
# One program per token and block of 4 heads; the half-dim and head tails are masked, and all three
# strides of x and out and both strides of each table are honoured.  Two multiplies and an add per
# element in float32 (the same operations torch does): agrees with the reference to a rounding of the
# fused multiply-add at most.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_H = 4
SIZES = [dict(t=64, h=8, d=64), dict(t=37, h=6, d=80)]


@triton.jit
def rope(x_ptr, cos_ptr, sin_ptr, out_ptr, H, HALF, sxt, sxh, sxd, sct, scd, sst, ssd, sot, soh, sod,
         BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    offs_h = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < HALF
    mask = (offs_h[:, None] < H) & mask_d[None, :]
    c = tl.load(cos_ptr + t * sct + offs_d * scd, mask=mask_d, other=0.0)[None, :]
    s = tl.load(sin_ptr + t * sst + offs_d * ssd, mask=mask_d, other=0.0)[None, :]
    base = x_ptr + t * sxt + offs_h[:, None] * sxh
    x1 = tl.load(base + offs_d[None, :] * sxd, mask=mask, other=0.0)
    x2 = tl.load(base + (offs_d[None, :] + HALF) * sxd, mask=mask, other=0.0)
    obase = out_ptr + t * sot + offs_h[:, None] * soh
    tl.store(obase + offs_d[None, :] * sod, x1 * c - x2 * s, mask=mask)
    tl.store(obase + (offs_d[None, :] + HALF) * sod, x2 * c + x1 * s, mask=mask)


def make_inputs(device: str, seed: int = 0, t: int = 64, h: int = 8, d: int = 64):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(t, h, d, generator=g)
    half = d // 2
    inv_freq = 1.0 / (10000.0 ** (torch.arange(half, dtype=torch.float32) / half))
    ang = torch.arange(t, dtype=torch.float32)[:, None] * inv_freq[None, :]
    return x.to(device), ang.cos().to(device), ang.sin().to(device)


def kernel(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    T, H, D = x.shape
    half = D // 2
    out = torch.empty((T, H, D), dtype=x.dtype, device=x.device)
    rope[(T, triton.cdiv(H, BLOCK_H))](
        x, cos, sin, out, H, half, x.stride(0), x.stride(1), x.stride(2),
        cos.stride(0), cos.stride(1), sin.stride(0), sin.stride(1),
        out.stride(0), out.stride(1), out.stride(2), BLOCK_H=BLOCK_H, BLOCK_D=triton.next_power_of_2(half))
    return out


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
