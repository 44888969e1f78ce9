# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# GEGLU, out = a * gelu(g) with (a, g) = x.chunk(2, dim=-1) (erf GELU), over the (rows, 2*H) output of
# a fused up/gate projection.  One program per (row, block of 128 columns of the output); the value
# half is read at column c and the gate half at column c + SPLIT.  The wrapper passes
# SPLIT = cdiv(H, BLOCK) * BLOCK (written for a fused weight whose halves were each padded to a
# multiple of the block) where the halves of this x are packed back to back: SPLIT must be H.  When H
# is a multiple of 128 (the declared H=512) the two agree and the result is right to a few ULP.  At
# the declared H=300 SPLIT is 384: every gate value is read 84 columns too far to the right, the last
# 84 columns of each row's output from the first 84 elements of the NEXT row, and for the last row 84
# elements past the end of x (an out-of-bounds read: NaN with a NaN guard region after x).  Nearly
# every output element at H=300 is wrong (7169 of 7200, max abs ~7) (the value half is right, the gate half belongs to another
# column), finite except where the guard is read.  The plain interpreter reads whatever follows x.
# Stores are masked (c < H) and in bounds; every element is written.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=32, h=512), dict(rows=24, h=300)]


@triton.jit
def geglu(x_ptr, out_ptr, H, SPLIT, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < H
    a = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=0.0).to(tl.float32)
    g = tl.load(x_ptr + row * sxr + (c + SPLIT) * sxc, mask=m, other=0.0).to(tl.float32)
    gelu = 0.5 * g * (1.0 + tl.erf(g * 0.7071067811865476))
    tl.store(out_ptr + row * sor + c * soc, (a * gelu).to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, h: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(rows, 2 * h, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, two_h = x.shape
    H = two_h // 2
    split = triton.cdiv(H, BLOCK) * BLOCK  # must be H
    out = torch.empty((rows, H), dtype=x.dtype, device=x.device)
    geglu[(rows, triton.cdiv(H, BLOCK))](x, out, H, split, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                         BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    a, g = x.to(torch.float32).chunk(2, dim=-1)
    return (a * F.gelu(g)).to(x.dtype)
