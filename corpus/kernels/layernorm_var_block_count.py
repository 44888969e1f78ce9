# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# A row LayerNorm, y = (x - mean) / sqrt(var + eps) * w + b, with each row held in one block of
# BLOCK = next_power_of_2(cols) lanes.  The loads are masked (padding lanes 0.0) and the centred
# values are masked before squaring, but the variance divides by BLOCK, the padded width, instead of
# cols.  When cols is a power of two (cols=1024) BLOCK == cols and every row is right.  At the
# declared cols=768 (BLOCK 1024) the variance of every row is 768/1024 of the true one, so every
# output element is (x - mean) * rsqrt(0.75 * var) * w + b: off by a factor of about 1.155 in the
# normalised part, on every row and column (not only the tail).  Nothing is out of bounds and every
# element is written; the same rows at cols=1024 pass: the padding lanes enter the reduction.
from __future__ import annotations

import torch
import triton
import triton.language as tl

EPS = 1e-5
SIZES = [dict(rows=32, cols=1024), dict(rows=32, cols=768)]


@triton.jit
def layer_norm(x_ptr, w_ptr, b_ptr, y_ptr, cols, sxr, syr, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * sxr + offs, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    xc = tl.where(m, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / BLOCK  # bug: / cols
    w = tl.load(w_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(y_ptr + row * syr + offs, xc * tl.rsqrt(var + eps) * w + b, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 1024) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * 2 + 0.5
    w = torch.rand(cols, generator=g) + 0.5
    b = torch.randn(cols, generator=g) * 0.1
    return x.to(device), w.to(device), b.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    x, w, b = x.contiguous(), w.contiguous(), b.contiguous()
    y = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    layer_norm[(rows,)](x, w, b, y, cols, x.stride(0), y.stride(0), EPS, BLOCK=triton.next_power_of_2(cols))
    return y


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, EPS)
