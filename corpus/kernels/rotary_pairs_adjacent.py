# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# Rotary position embedding on a (tokens, heads, dim) tensor where the reference uses the half-split
# ("NeoX", rotate_half) layout: element j is rotated together with element j + dim/2 by the angle
# pos * theta_j.  The kernel was written for the interleaved ("GPT-J") layout: it rotates the pair
# (2j, 2j+1) by the angle of frequency j, loading the even and odd elements of each head.  The tables,
# masks and strides are right and every pair is rotated by the right kind of angle, but the wrong
# elements are paired: token 0 (angle 0, cos = 1, sin = 0) comes out exactly right, and every later
# token is wrong in nearly every element (the rotation mixes neighbours instead of the two halves),
# by O(1) (max abs ~6.7; the norm of each output pair is preserved, so the values look plausible):
# 11968 of 12288 at 48x4x64, 8000 of 8352 at 29x3x96.  First bad index:
# the start of token 1 (heads*dim).  Nothing is out of bounds (half-dim tail masked at dim=96 with a
# 64-wide block), every element is written, all values finite.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(t=48, heads=4, dim=64), dict(t=29, heads=3, dim=96)]


@triton.jit
def rope_pairs(x_ptr, cos_ptr, sin_ptr, out_ptr, HALF, sxt, sxh, sxd, sot, soh, sod, sct, scd, sst, ssd,
               BLOCK: tl.constexpr):
    tok = tl.program_id(0)
    h = tl.program_id(1)
    j = tl.arange(0, BLOCK)
    m = j < HALF
    c = tl.load(cos_ptr + tok * sct + j * scd, mask=m, other=1.0)
    s = tl.load(sin_ptr + tok * sst + j * ssd, mask=m, other=0.0)
    base = x_ptr + tok * sxt + h * sxh
    xe = tl.load(base + (2 * j) * sxd, mask=m, other=0.0)      # interleaved pairs (2j, 2j+1) ...
    xo = tl.load(base + (2 * j + 1) * sxd, mask=m, other=0.0)  # ... where the reference pairs (j, j + HALF)
    ob = out_ptr + tok * sot + h * soh
    tl.store(ob + (2 * j) * sod, xe * c - xo * s, mask=m)
    tl.store(ob + (2 * j + 1) * sod, xo * c + xe * s, mask=m)


def make_inputs(device: str, seed: int = 0, t: int = 48, heads: int = 4, dim: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(t, heads, dim, generator=g)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    ang = torch.arange(t, dtype=torch.float32)[:, None] * inv_freq[None, :]
    return x.to(device), ang.cos().to(device), ang.sin().to(device)


def kernel(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    T, H, D = x.shape
    out = torch.empty_like(x)
    half = D // 2
    rope_pairs[(T, H)](x, cos, sin, out, half, *x.stride(), *out.stride(), *cos.stride(), *sin.stride(),
                       BLOCK=triton.next_power_of_2(half))
    return out


def reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
