# kdiag corpus kernel — expected: verdict=pass, category=none
# A padded 2-D max-pool, F.max_pool2d(x, kernel_size=3, stride=2, padding=1), over an (N, C, H, W)
# feature map (the stem pool of a ResNet).  One program per (n*c plane, block of 8 output rows, block
# of 16 output columns) takes the maximum of the nine taps at (2*oh - 1 + kh, 2*ow - 1 + kw).  A tap
# that falls in the padding (row or column -1, or H / W on the far side) is masked and loads -inf, as
# torch's implicit padding does, so it never wins; the output tails are masked too (17x30 gives 9x15,
# a partial tile on both axes; 32x32 gives 16x16).  The values are shifted normals, almost all
# negative, so a padding value of 0.0 would show on every border output.  All four strides of x and
# of out are honoured (transposed or sliced views read through them).  A max does not round: the
# output equals torch's bit for bit, and every access is inside x and out.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_H, BLOCK_W = 8, 16
SIZES = [dict(n=2, c=3, h=17, w=30), dict(n=1, c=2, h=32, w=32)]


@triton.jit
def maxpool3s2p1(x_ptr, out_ptr, C, H, W, OH, OW, sxn, sxc, sxh, sxw, son, soc, soh, sow,
                 BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0)
    n = plane // C
    c = plane % C
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    omask = (oh[:, None] < OH) & (ow[None, :] < OW)
    base = x_ptr + n * sxn + c * sxc
    acc = tl.full((BLOCK_H, BLOCK_W), float("-inf"), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh * 2 - 1 + kh
        hmask = (ih >= 0) & (ih < H)
        for kw in tl.static_range(3):
            iw = ow * 2 - 1 + kw
            wmask = (iw >= 0) & (iw < W)
            m = omask & hmask[:, None] & wmask[None, :]
            v = tl.load(base + ih[:, None] * sxh + iw[None, :] * sxw, mask=m, other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(out_ptr + n * son + c * soc + oh[:, None] * soh + ow[None, :] * sow,
             acc.to(out_ptr.dtype.element_ty), mask=omask)


def make_inputs(device: str, seed: int = 0, n: int = 2, c: int = 3, h: int = 17, w: int = 30) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(n, c, h, w, generator=g) - 4.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    OH, OW = (H + 2 - 3) // 2 + 1, (W + 2 - 3) // 2 + 1
    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    grid = (N * C, triton.cdiv(OH, BLOCK_H), triton.cdiv(OW, BLOCK_W))
    maxpool3s2p1[grid](x, out, C, H, W, OH, OW, *x.stride(), *out.stride(), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
