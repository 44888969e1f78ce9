# kdiag corpus kernel — expected: verdict=pass, category=none
# A 2-D max-pool, F.max_pool2d(x, kernel_size=3, stride=2) (no padding, floor mode), over an
# (N, C, H, W) feature map.  One program per (n*c plane, block of 8 output rows, block of 16 output
# columns) takes the maximum of the 3x3 window at (2*oh + kh, 2*ow + kw) with tl.maximum over the nine
# taps.  Both output tails are masked (OH = (H - 3) // 2 + 1: 33x47 gives 16x23, 64x64 gives 31x31, so
# a partial tile on the column axis, then on both), and masked lanes load -inf (never a maximum).  The
# values are shifted normals, mostly negative, so a 0.0 padding value or a start of 0.0 would show.
# Every tap of an unmasked output lies inside the input (2*(OH-1) + 2 <= H - 1); all four strides of x
# are honoured.  A max does not round: the output equals torch's bit for bit.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_H, BLOCK_W = 8, 16
SIZES = [dict(n=2, c=3, h=33, w=47), dict(n=1, c=4, h=64, w=64)]


@triton.jit
def maxpool3s2(x_ptr, out_ptr, C, OH, OW, sxn, sxc, sxh, sxw, son, soc, soh, sow,
               BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0)
    n = plane // C
    c = plane % C
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    m = (oh[:, None] < OH) & (ow[None, :] < OW)
    base = x_ptr + n * sxn + c * sxc
    acc = tl.full((BLOCK_H, BLOCK_W), float("-inf"), dtype=tl.float32)
    for kh in tl.static_range(3):
        for kw in tl.static_range(3):
            ih = oh[:, None] * 2 + kh
            iw = ow[None, :] * 2 + kw
            v = tl.load(base + ih * sxh + iw * sxw, mask=m, other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(out_ptr + n * son + c * soc + oh[:, None] * soh + ow[None, :] * sow,
             acc.to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 2, c: int = 3, h: int = 33, w: int = 47) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(n, c, h, w, generator=g) - 3.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    OH, OW = (H - 3) // 2 + 1, (W - 3) // 2 + 1
    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    grid = (N * C, triton.cdiv(OH, BLOCK_H), triton.cdiv(OW, BLOCK_W))
    maxpool3s2[grid](x, out, C, OH, OW, *x.stride(), *out.stride(), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.max_pool2d(x, kernel_size=3, stride=2)
