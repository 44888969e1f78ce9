# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Rotary position embedding (RoPE, half-split "NeoX" layout) on a (tokens, heads, dim) tensor, with
# the rotate-half step written the wrong way round: rotate_half(x) must be cat(-x2, x1), and the
# kernel uses cat(x2, -x1), the negation on the other half:
#   out[..., :dim/2] = x1 * cos + x2 * sin,   out[..., dim/2:] = x2 * cos - x1 * sin,
# i.e. every pair is rotated by -angle instead of +angle.  Token 0 (angle 0: cos = 1, sin = 0) is
# exactly right, and so are the values where sin is 0; every later token is wrong in both halves
# (the error is 2 * x * sin(angle): up to ~7 for the high-frequency pairs, ~1e-4 for the slowest
# ones at the first tokens): 32068 of 32768 elements wrong at 64x8x64, 17121 of 17760 at 37x6x80,
# the first bad index is 512 (token 1), spread over all later tokens, heads and dims alike.
# Indexing, masks and strides are those of the correct kernel: nothing out of bounds, every element
# written, values finite and of the right magnitude (a rotation keeps the norm of each pair).
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
    tl.store(obase + offs_d[None, :] * sod, x1 * c + x2 * s, mask=mask)  # bug: x1 * c - x2 * s
    tl.store(obase + (offs_d[None, :] + HALF) * sod, x2 * c - x1 * s, mask=mask)  # bug: x2 * c + x1 * s


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
