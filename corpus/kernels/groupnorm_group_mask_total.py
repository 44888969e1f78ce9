# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# GroupNorm over an (N, C, HW) activation with G = 8 groups of CPG = C/G channels and a per-channel
# affine, as F.group_norm computes it.  One program per (sample, group) loads its group as one tile of
# BLOCK_C x BLOCK_HW lanes (BLOCK_C = next_power_of_2(CPG)), starting at channel g*CPG.  The channel
# mask is written `ch < C` (inside the tensor) where it must be `ch < (g+1)*CPG` (inside the group): when
# CPG is a power of two (the declared C=64: CPG=8) the two agree and the result is right to a few ULP.
# At the declared C=48 (CPG=6, BLOCK_C=8) the two padding lanes of the channel block are live: every
# group but the last takes the first 2 channels of the NEXT group into its sum and sum of squares
# (divided by the true count CPG*HW), so its mean and variance are wrong, and it also stores
# normalised values into those 2 channels, which the next group's program overwrites afterwards
# (programs run in order under the interpreter; on a GPU the two stores race).  Result: groups 0..6 of
# every sample wrong in (nearly) all their elements (4533 of 5184 at 3x48x36, max abs ~1.1), the last
# group of each sample right; all reads inside x (the last group's extra
# lanes are cut by ch < C), every element written, finite.  The same shape with C rounded up to 64
# passes: the block's padding lanes enter the reduction.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

G = 8
EPS = 1e-5
SIZES = [dict(n=2, c=64, hw=49), dict(n=3, c=48, hw=36)]


@triton.jit
def group_norm(x_ptr, w_ptr, b_ptr, out_ptr, C, HW, CPG, eps, sxn, sxc, sxs, son, soc, sos,
               BLOCK_C: tl.constexpr, BLOCK_HW: tl.constexpr):
    n = tl.program_id(0)
    g = tl.program_id(1)
    ch = g * CPG + tl.arange(0, BLOCK_C)
    s = tl.arange(0, BLOCK_HW)
    m = (ch[:, None] < C) & (s[None, :] < HW)  # the channel test must stop at the group's end
    x = tl.load(x_ptr + n * sxn + ch[:, None] * sxc + s[None, :] * sxs, mask=m, other=0.0).to(tl.float32)
    cnt = (CPG * HW).to(tl.float32)
    mean = tl.sum(tl.sum(x, axis=1), axis=0) / cnt
    xc = tl.where(m, x - mean, 0.0)
    var = tl.sum(tl.sum(xc * xc, axis=1), axis=0) / cnt
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + ch, mask=ch < C, other=0.0)
    b = tl.load(b_ptr + ch, mask=ch < C, other=0.0)
    y = xc * rstd * w[:, None] + b[:, None]
    tl.store(out_ptr + n * son + ch[:, None] * soc + s[None, :] * sos, y.to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 2, c: int = 64, hw: int = 49) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, c, hw, generator=gen) * 1.5 + torch.randn(n, c, 1, generator=gen)
    w = 1.0 + 0.1 * torch.randn(c, generator=gen)
    b = 0.1 * torch.randn(c, generator=gen)
    return x.to(device), w.to(device), b.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    N, C, HW = x.shape
    cpg = C // G
    out = torch.empty_like(x)
    group_norm[(N, G)](x, w, b, out, C, HW, cpg, EPS, *x.stride(), *out.stride(),
                       BLOCK_C=triton.next_power_of_2(cpg), BLOCK_HW=triton.next_power_of_2(HW))
    return out


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.group_norm(x, G, w, b, eps=EPS)
