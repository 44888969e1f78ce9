# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# RMSNorm of float16 hidden states, y = x / sqrt(mean(x^2) + eps) * w, one program per row (the whole
# row in one block, both strides of x honoured).  The kernel squares x in float16 and only then
# widens: (x * x).to(tl.float32).  float16 tops out at
# 65504, so any |x| >= 256 squares to +inf, the sum of squares is inf, the reciprocal RMS is 0 and
# the WHOLE row comes out as zeros (x * 0).  The declared inputs are LLM-style hidden states: unit
# normals plus three "massive activation" channels of magnitude 300..900 in some rows (12 of 32 and
# 7 of 20 rows), as real transformer residual streams carry them; the reference computes in float32
# (as torch's rms_norm on a float16 input upcasts) and is finite and nonzero there.  Exactly those rows
# come out as all zeros (11926 of 32768 and 5221 of 15360 elements outside tolerance: the rest of those
# rows are reference values within atol of 0), where the reference has values up to ~26 in the hot
# channels and ~0.03 elsewhere; the other rows match within 1 ULP of float16.  The infinity stays
# internal, the output has no NaN or Inf: what shows is whole rows of zeros, computed (not unwritten).
# Nothing is out of bounds.  Widening before the square (xf = x.to(tl.float32); xf * xf) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

EPS = 1e-6
SIZES = [dict(rows=32, cols=1024), dict(rows=20, cols=768)]


@triton.jit
def rmsnorm_f16(x_ptr, w_ptr, y_ptr, cols, sxr, sxc, syr, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cc = tl.arange(0, BLOCK)
    m = cc < cols
    x = tl.load(x_ptr + row * sxr + cc * sxc, mask=m, other=0.0)  # float16
    ss = tl.sum((x * x).to(tl.float32), axis=0)  # bug: squared in float16, overflows for |x| >= 256
    rstd = 1.0 / tl.sqrt(ss / cols + eps)
    w = tl.load(w_ptr + cc, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * syr + cc, (x.to(tl.float32) * rstd * w).to(tl.float16), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 1024) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g)
    hot_rows = torch.randperm(rows, generator=g)[: (rows * 3) // 8]
    hot_cols = torch.randperm(cols, generator=g)[:3]
    mag = 300.0 + 600.0 * torch.rand(len(hot_rows), 3, generator=g)
    sign = torch.where(torch.rand(len(hot_rows), 3, generator=g) < 0.5, -1.0, 1.0)
    x[hot_rows[:, None], hot_cols[None, :]] = mag * sign
    w = 1.0 + 0.1 * torch.randn(cols, generator=g)
    return x.to(torch.float16).to(device), w.to(torch.float16).to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    rmsnorm_f16[(rows,)](x, w, y, cols, x.stride(0), x.stride(1), y.stride(0), EPS,
                         BLOCK=triton.next_power_of_2(cols))
    return y


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + EPS) * w.float()).to(torch.float16)
