# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A causal depthwise 1-D convolution, out[b, c, t] = sum_k w[c, k] * x[b, c, t - (K-1) + k] with zeros
# before the start (K=4), as the short convolution of a Mamba / Hyena block computes it: the reference
# pads K-1 zeros on the LEFT (F.conv1d(F.pad(x, (K-1, 0)), w[:, None, :], groups=C)).  The kernel
# puts the padding on the wrong side: it reads x[b, c, t + k] (taps masked with t + k < L, zeros past
# the end), i.e. a convolution padded on the right that looks K-1 steps into the future.  Every output
# is the reference's value K-1 = 3 positions later (out[t] == ref[t + 3] for t < L - 3), and the last 3
# positions of each (b, c) row miss taps the reference has: nearly every element is wrong, by a shift of
# 3 along the last axis (16382 of 16384 at 2x32x256, 9599 of 9600 at 2x48x100, max abs ~8.5).  All loads are masked and in bounds, every
# element is written, the strides of x, w and out are honoured.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

K = 4
BLOCK_T = 64
SIZES = [dict(b=2, c=32, l=256), dict(b=2, c=48, l=100)]


@triton.jit
def dwconv_causal(x_ptr, w_ptr, out_ptr, C, L, sxb, sxc, sxl, swc, swk, sob, soc, sol,
                  K: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0)
    b = pid // C
    c = pid % C
    t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    acc = tl.zeros((BLOCK_T,), dtype=tl.float32)
    for k in tl.static_range(K):
        wk = tl.load(w_ptr + c * swc + k * swk).to(tl.float32)
        src = t + k  # the causal tap is t - (K - 1) + k
        xv = tl.load(x_ptr + b * sxb + c * sxc + src * sxl, mask=(src < L), other=0.0)
        acc += wk * xv.to(tl.float32)
    tl.store(out_ptr + b * sob + c * soc + t * sol, acc.to(out_ptr.dtype.element_ty), mask=t < L)


def make_inputs(device: str, seed: int = 0, b: int = 2, c: int = 32, l: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(b, c, l, generator=g)
    w = torch.randn(c, K, generator=g) * 0.5
    return x.to(device), w.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    B, C, L = x.shape
    out = torch.empty_like(x)
    grid = (B * C, triton.cdiv(L, BLOCK_T))
    dwconv_causal[grid](x, w, out, C, L, *x.stride(), *w.stride(), *out.stride(), K=K, BLOCK_T=BLOCK_T)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    C = x.shape[1]
    return F.conv1d(F.pad(x, (K - 1, 0)), w[:, None, :], groups=C)
