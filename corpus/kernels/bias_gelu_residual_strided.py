# kdiag corpus kernel — expected: verdict=pass, category=none
# A transformer MLP epilogue fused into one pass, out = residual + gelu(x + bias) with the exact (erf)
# GELU, as torch's F.gelu computes it by default, over (rows, cols) activations in 16x64 tiles.  Every
# tensor is addressed through its own strides: the declared residual is a column slice of a wider
# buffer (row stride 2*cols + 8, as a view of a fused [h | skip] projection hands it over), x and out
# are contiguous, and the bias is a (cols,) vector broadcast over the rows.  Both tails are masked
# (rows=37, cols=300 leave a partial tile on each axis).  The GELU is evaluated in float32 with
# tl.erf: the only difference from torch is the rounding of erf and of the additions, a few ULP,
# inside the default float32 tolerance.  Nothing is out of bounds; every element is written.
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_R, BLOCK_C = 16, 64
SIZES = [dict(rows=64, cols=256), dict(rows=37, cols=300)]


@triton.jit
def bias_gelu_residual(x_ptr, b_ptr, r_ptr, out_ptr, rows, cols,
                       sxr, sxc, srr, src, sor, soc,
                       BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rr = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cc = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = (rr[:, None] < rows) & (cc[None, :] < cols)
    x = tl.load(x_ptr + rr[:, None] * sxr + cc[None, :] * sxc, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cc, mask=cc < cols, other=0.0).to(tl.float32)
    res = tl.load(r_ptr + rr[:, None] * srr + cc[None, :] * src, mask=m, other=0.0).to(tl.float32)
    h = x + b[None, :]
    g = 0.5 * h * (1.0 + tl.erf(h * 0.7071067811865476))
    tl.store(out_ptr + rr[:, None] * sor + cc[None, :] * soc, (res + g).to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * 2.0
    bias = torch.randn(cols, generator=g) * 0.5
    fused = torch.randn(rows, 2 * cols + 8, generator=g)
    # the residual is a strided view: row stride 2*cols + 8, column stride 1
    return x.to(device), bias.to(device), fused.to(device)[:, cols + 8:]


def kernel(x: torch.Tensor, bias: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(rows, BLOCK_R), triton.cdiv(cols, BLOCK_C))
    bias_gelu_residual[grid](x, bias, residual, out, rows, cols,
                             x.stride(0), x.stride(1), residual.stride(0), residual.stride(1),
                             out.stride(0), out.stride(1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(x: torch.Tensor, bias: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    # computed in float32 and rounded once, as the kernel does (the same for float32 inputs)
    return (residual.float() + F.gelu(x.float() + bias.float())).to(x.dtype)
