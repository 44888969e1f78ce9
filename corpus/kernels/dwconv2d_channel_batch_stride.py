# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# A depthwise 3x3 convolution with padding 1, F.conv2d(x, w, padding=1, groups=C) with w of shape
# (C, 1, 3, 3) (a MobileNet block), one program per (n*c plane, 8x16 output tile), all nine taps masked
# at the image border.  The plane's base address is written n * stride_n + c * stride_n: the channel is
# stepped with the batch stride (C*H*W elements) instead of the channel stride (H*W).  The planes of
# channel 0 are right; every other plane reads the wrong data, and every plane with n + c >= N starts
# past the end of x.  At the declared 2x3x16x16 plane (0,1) reads plane (1,0) (inside x, wrong
# values) and planes (0,2), (1,1), (1,2) read 0..1023 elements past x's end (x holds 1536): 1024 of
# 1536 outputs wrong, the first bad at flat index 256; at 1x4x12x12 channels 1..3 read 0..1295
# elements past the end of x (576 elements): 432 of 576 wrong.  Loads out of bounds at both declared
# sizes (the out-of-bounds taps return whatever follows x: under the plain interpreter garbage, up to
# ~1e34 here, or zeros; NaN with a NaN guard region).  The weights are indexed with
# the right channel; the stores use out's strides and stay in bounds.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_H, BLOCK_W = 8, 16
SIZES = [dict(n=2, c=3, h=16, w=16), dict(n=1, c=4, h=12, w=12)]


@triton.jit
def dwconv3x3(x_ptr, w_ptr, out_ptr, C, H, W, sxn, sxc, sxh, sxw, swc, son, soc, soh, sow,
              BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0)
    n = plane // C
    c = plane % C
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    omask = (oh[:, None] < H) & (ow[None, :] < W)
    base = x_ptr + n * sxn + c * sxn
    acc = tl.zeros((BLOCK_H, BLOCK_W), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh - 1 + kh
        hmask = (ih >= 0) & (ih < H)
        for kw in tl.static_range(3):
            iw = ow - 1 + kw
            wmask = (iw >= 0) & (iw < W)
            m = omask & hmask[:, None] & wmask[None, :]
            xv = tl.load(base + ih[:, None] * sxh + iw[None, :] * sxw, mask=m, other=0.0).to(tl.float32)
            wv = tl.load(w_ptr + c * swc + kh * 3 + kw).to(tl.float32)
            acc += xv * wv
    tl.store(out_ptr + n * son + c * soc + oh[:, None] * soh + ow[None, :] * sow,
             acc.to(out_ptr.dtype.element_ty), mask=omask)


def make_inputs(device: str, seed: int = 0, n: int = 2, c: int = 3, h: int = 16, w: int = 16) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, c, h, w, generator=g)
    wt = torch.randn(c, 1, 3, 3, generator=g) * 0.3
    return x.to(device), wt.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    w = w.contiguous()
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    grid = (N * C, triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    dwconv3x3[grid](x, w, out, C, H, W, *x.stride(), w.stride(0), *out.stride(),
                    BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.conv2d(x, w, padding=1, groups=x.shape[1])
