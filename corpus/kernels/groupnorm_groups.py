# kdiag corpus kernel — expected: verdict=pass, category=none
# GroupNorm over an (N, C, HW) activation (a conv feature map with its spatial dims flattened), G = 8 groups
# of C/G channels each, with a per-channel affine: y = (x - mean_g) / sqrt(var_g + eps) * w[c] + b[c],
# where mean_g and var_g are taken over the C/G channels x HW positions of each (sample, group), as
# F.group_norm computes them.  One program per (sample, group) walks its group's C/G*HW elements in
# masked chunks of 1024 twice: once for the mean, once for the centred sum of squares (a two-pass
# variance, no E[x^2] - E[x]^2 cancellation), then a third time to normalise and store.  The group's
# elements are addressed through all three strides of x (channel = j // HW, position = j % HW), so
# permuted or sliced views are read correctly.  HW = 49 and 7 (7x7 and 7x1 maps) make the group sizes
# non powers of two: the masked tail lanes load 0.0, are excluded from the centred sum, and the
# divisor is the true group size.  Everything is float32; the result differs from torch's by the order
# of the additions only (a few ULP).
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 1024
EPS = 1e-5
GROUPS = 8
SIZES = [dict(n=4, c=64, hw=49), dict(n=3, c=48, hw=7)]


@triton.jit
def group_norm(x_ptr, w_ptr, b_ptr, y_ptr, C, HW, CPG, sxn, sxc, sxs, syn, syc, sys, eps,
               BLOCK: tl.constexpr):
    n = tl.program_id(0)
    g = tl.program_id(1)
    size = CPG * HW
    c0 = g * CPG
    x_base = x_ptr + n * sxn + c0 * sxc
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, size, BLOCK):
        j = start + tl.arange(0, BLOCK)
        m = j < size
        acc += tl.load(x_base + (j // HW) * sxc + (j % HW) * sxs, mask=m, other=0.0)
    mean = tl.sum(acc, axis=0) / size
    acc2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, size, BLOCK):
        j = start + tl.arange(0, BLOCK)
        m = j < size
        v = tl.load(x_base + (j // HW) * sxc + (j % HW) * sxs, mask=m, other=0.0)
        d = tl.where(m, v - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / size + eps)
    for start in range(0, size, BLOCK):
        j = start + tl.arange(0, BLOCK)
        m = j < size
        ch = j // HW
        pos = j % HW
        v = tl.load(x_base + ch * sxc + pos * sxs, mask=m, other=0.0)
        w = tl.load(w_ptr + c0 + ch, mask=m, other=0.0)
        b = tl.load(b_ptr + c0 + ch, mask=m, other=0.0)
        tl.store(y_ptr + n * syn + (c0 + ch) * syc + pos * sys, (v - mean) * rstd * w + b, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4, c: int = 64, hw: int = 49) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, c, hw, generator=g) * 2.0 + 0.5
    w = torch.rand(c, generator=g) + 0.5
    b = torch.randn(c, generator=g) * 0.1
    return x.to(device), w.to(device), b.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    N, C, HW = x.shape
    y = torch.empty((N, C, HW), dtype=x.dtype, device=x.device)
    w, b = w.contiguous(), b.contiguous()
    group_norm[(N, GROUPS)](x, w, b, y, C, HW, C // GROUPS, x.stride(0), x.stride(1), x.stride(2),
                            y.stride(0), y.stride(1), y.stride(2), EPS, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.group_norm(x, GROUPS, w, b, EPS)
