# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=row-wider-than-block
# RMSNorm, out = x / sqrt(mean(x^2) + eps) * w, one program per row, with the row held in a single
# block: BLOCK = 1024 is fixed ("the largest hidden size we use") and there is no loop over the row.
# The loads and stores are masked with offs < cols, and the mean divides by the true cols, so every
# row of up to 1024 columns is right: the declared sizes (cols=1024, and cols=600 with a masked tail)
# pass, and so do transposed or padded views (both strides are honoured).  A wider row, a size probe
# outside the contract such as cols=1025 or 2048, breaks the assumption cols <= BLOCK without any
# out-of-bounds access: only the first 1024 columns are read and written, so columns 1024.. keep what
# torch.empty left there (a sentinel shows them unwritten) and the first 1024 are normalised with
# the mean of the wrong set of squares (off by ~0.1% at cols=1025, a few percent at 2048).  The kernel assumes a row fits one
# block; a loop over the row (or BLOCK = next_power_of_2(cols)) would widen the contract.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 1024
EPS = 1e-6
SIZES = [dict(rows=32, cols=1024), dict(rows=24, cols=600)]


@triton.jit
def rmsnorm(x_ptr, w_ptr, out_ptr, cols, sxr, sxc, sor, soc, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * sxr + offs * sxc, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / cols + eps)
    tl.store(out_ptr + row * sor + offs * soc, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 1024):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g)
    w = 1.0 + 0.1 * torch.randn(cols, generator=g)
    return x.to(device), w.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    rmsnorm[(rows,)](x, w, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), EPS, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + EPS) * w.float()).to(x.dtype)
