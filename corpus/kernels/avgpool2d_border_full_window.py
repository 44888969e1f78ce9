# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A 3x3 average pool with stride 1 and padding 1 (a "same"-size box blur over a feature map), as
# F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False) computes it: each output is the
# mean of the window cells that lie inside the image, so a corner averages 4 cells and an edge 6.  The
# kernel masks the padding taps correctly (they load 0.0 and are never read out of bounds) but divides
# every window sum by the full 9, the count_include_pad=True formula.  The interior is right to a
# few ULP; every output on the one-cell border ring is too small in magnitude: by 4/9 at the four
# corners and 6/9 along the edges.  At the declared 20x30 planes 96 of 600 outputs per plane are
# wrong (576 of 3600 in all), at 16x16 60 of 256 per plane (240 of 1024): whole first and last rows
# and columns of every plane, the same pattern in each.  The inputs are positive (a shifted normal,
# like post-ReLU activations) so the shrinkage is visible everywhere on the ring.  Every access is
# masked and inside x and out, every element is written, nothing is NaN.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_H, BLOCK_W = 8, 16
SIZES = [dict(n=2, c=3, h=20, w=30), dict(n=1, c=4, h=16, w=16)]


@triton.jit
def avgpool3_same(x_ptr, out_ptr, C, H, W, sxn, sxc, sxh, sxw, son, soc, soh, sow,
                  BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0)
    n = plane // C
    c = plane % C
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    omask = (oh[:, None] < H) & (ow[None, :] < W)
    base = x_ptr + n * sxn + c * sxc
    acc = tl.zeros((BLOCK_H, BLOCK_W), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh - 1 + kh
        hmask = (ih >= 0) & (ih < H)
        for kw in tl.static_range(3):
            iw = ow - 1 + kw
            wmask = (iw >= 0) & (iw < W)
            m = omask & hmask[:, None] & wmask[None, :]
            acc += tl.load(base + ih[:, None] * sxh + iw[None, :] * sxw, mask=m, other=0.0).to(tl.float32)
    out = acc / 9.0
    tl.store(out_ptr + n * son + c * soc + oh[:, None] * soh + ow[None, :] * sow,
             out.to(out_ptr.dtype.element_ty), mask=omask)


def make_inputs(device: str, seed: int = 0, n: int = 2, c: int = 3, h: int = 20, w: int = 30) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(n, c, h, w, generator=g) * 0.5 + 2.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    grid = (N * C, triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    avgpool3_same[grid](x, out, C, H, W, *x.stride(), *out.stride(), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.avg_pool2d(x, kernel_size=3, stride=1, padding=1, count_include_pad=False)
