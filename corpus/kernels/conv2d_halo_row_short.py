# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A depthwise 3x3 convolution with zero padding 1, out[n, c] = conv2d(x[n, c], w[c]) (F.conv2d with
# groups=C), written row-stationary: one program per (n*c plane, band of ROWS=8 output rows, block of 32
# output columns) streams the input rows the band needs once each, loads the three column-shifted
# vectors of each input row (masked to the image: zero padding), and adds each row's contribution into
# the one, two or three output rows of the band it feeds (output row ir - kh + 1 for kernel row kh).  A
# band of 8 output rows needs input rows oh0-1 .. oh0+8 (a halo of one row above and one below); the loop
# is written range(oh0 - 1, oh0 + ROWS), one row short: the bottom halo row is never read.  The last row
# of every band (oh % 8 == 7) then misses its w[c, 2, :] term, unless it is the image's last row (its
# halo is padding anyway).  Only those rows are wrong, periodic with the band height along H: 3 of every
# 32 rows at 2x4x32x48 (rows 7, 15, 23; row 31 is the last), rows 7, 15, 23 of 30 at 2x3x30x40 (1152 of 12288 and
# 720 of 7200 elements, whole rows of every plane), max abs ~4.5; all loads masked and in bounds, every element written.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

ROWS, BW = 8, 32
SIZES = [dict(n=2, c=4, h=32, w=48), dict(n=2, c=3, h=30, w=40)]


@triton.jit
def dwconv3x3(x_ptr, w_ptr, out_ptr, C, H, W, sxn, sxc, sxh, sxw, son, soc, soh, sow,
              ROWS: tl.constexpr, BW: tl.constexpr):
    plane = tl.program_id(0)
    n = plane // C
    ch = plane % C
    oh0 = tl.program_id(1) * ROWS
    ow = tl.program_id(2) * BW + tl.arange(0, BW)
    r = tl.arange(0, ROWS)
    xb = x_ptr + n * sxn + ch * sxc
    acc = tl.zeros((ROWS, BW), dtype=tl.float32)
    for ir in range(oh0 - 1, oh0 + ROWS):  # bug: the band needs rows oh0-1 .. oh0+ROWS (range(oh0 - 1, oh0 + ROWS + 1))
        row_ok = (ir >= 0) & (ir < H)
        x0 = tl.load(xb + ir * sxh + (ow - 1) * sxw, mask=row_ok & (ow - 1 >= 0) & (ow - 1 < W), other=0.0)
        x1 = tl.load(xb + ir * sxh + ow * sxw, mask=row_ok & (ow < W), other=0.0)
        x2 = tl.load(xb + ir * sxh + (ow + 1) * sxw, mask=row_ok & (ow + 1 < W), other=0.0)
        for kh in tl.static_range(3):
            w0 = tl.load(w_ptr + ch * 9 + kh * 3 + 0)
            w1 = tl.load(w_ptr + ch * 9 + kh * 3 + 1)
            w2 = tl.load(w_ptr + ch * 9 + kh * 3 + 2)
            contrib = w0 * x0 + w1 * x1 + w2 * x2
            target = ir - kh + 1 - oh0  # the band row this input row feeds through kernel row kh
            acc += tl.where(r[:, None] == target, contrib[None, :], 0.0)
    oh = oh0 + r
    tl.store(out_ptr + n * son + ch * soc + oh[:, None] * soh + ow[None, :] * sow, acc,
             mask=(oh[:, None] < H) & (ow[None, :] < W))


def make_inputs(device: str, seed: int = 0, n: int = 2, c: int = 4, h: int = 32, w: int = 48) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, c, h, w, generator=g)
    wt = torch.randn(c, 1, 3, 3, generator=g) * 0.5
    return x.to(device), wt.to(device)


def kernel(x: torch.Tensor, wt: torch.Tensor) -> torch.Tensor:
    N, C, H, W = x.shape
    wflat = wt.to(torch.float32).reshape(C, 9).contiguous()
    out = torch.empty((N, C, H, W), dtype=torch.float32, device=x.device)
    grid = (N * C, triton.cdiv(H, ROWS), triton.cdiv(W, BW))
    dwconv3x3[grid](x, wflat, out, C, H, W, *x.stride(), *out.stride(), ROWS=ROWS, BW=BW)
    return out


def reference(x: torch.Tensor, wt: torch.Tensor) -> torch.Tensor:
    return F.conv2d(x.to(torch.float32), wt.to(torch.float32), padding=1, groups=x.shape[1])
