# kdiag corpus kernel — expected: verdict=pass, category=none
# Group-wise int8 weight dequantization, w[r, c] = q[r, c] * scale[r, c // GROUP] with GROUP = 64
# columns per scale (as weight-only quantized linear layers store it), into float32.  One program
# per block of 8 rows and 64 columns; the int8 values are widened to float32 before the multiply,
# the scale's column is the group index c // GROUP (the last group may be partial: cols=200 has 4
# groups, the last of 8 columns), both row and column tails are masked, and q's, scale's and the
# output's strides are all honoured.  One multiply per element of exactly representable operands:
# the result equals torch's q.float() * scale.repeat_interleave(GROUP, 1) bit for bit.
from __future__ import annotations

import torch
import triton
import triton.language as tl

GROUP = 64
BLOCK_R, BLOCK_C = 8, 64
SIZES = [dict(rows=64, cols=512), dict(rows=30, cols=200)]


@triton.jit
def dequant(q_ptr, s_ptr, out_ptr, R, C, sqr, sqc, ssr, ssg, sor, soc,
            GROUP: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    offs_c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (offs_r[:, None] < R) & (offs_c[None, :] < C)
    q = tl.load(q_ptr + offs_r[:, None] * sqr + offs_c[None, :] * sqc, mask=mask, other=0)
    grp = offs_c // GROUP
    s = tl.load(s_ptr + offs_r[:, None] * ssr + grp[None, :] * ssg, mask=mask, other=0.0)
    tl.store(out_ptr + offs_r[:, None] * sor + offs_c[None, :] * soc, q.to(tl.float32) * s, mask=mask)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512):
    g = torch.Generator(device="cpu").manual_seed(seed)
    q = torch.randint(-127, 128, (rows, cols), generator=g, dtype=torch.int8)
    ngroups = (cols + GROUP - 1) // GROUP
    scale = torch.rand(rows, ngroups, generator=g) * 0.02 + 1e-3
    return q.to(device), scale.to(device)


def kernel(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    R, C = q.shape
    out = torch.empty((R, C), dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
    dequant[grid](q, scale, out, R, C, q.stride(0), q.stride(1), scale.stride(0), scale.stride(1),
                  out.stride(0), out.stride(1), GROUP=GROUP, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    s = scale.repeat_interleave(GROUP, dim=1)[:, : q.shape[1]]
    return q.float() * s
