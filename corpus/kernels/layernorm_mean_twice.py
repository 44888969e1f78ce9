# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# LayerNorm over the last dimension, y = (x - mean) / sqrt(var + eps) * gamma + beta, one program per
# row walking it in chunks of 256 (three passes: mean, variance, output).  The variance pass is right
# (it centres x before squaring), but the output pass centres twice: it computes xc = x - mean and
# then normalises (xc - mean), so every element of a row is off by -mean * rstd * gamma[c].  The
# declared activations are not centred (each row has its own offset, uniform in -2..2, as
# post-residual hidden states have), so every row is shifted, by far more than the tolerance: every
# element wrong at both sizes (48000 of 48000, 12288 of 12288, max abs ~2.6), the error constant
# along a row up to gamma, largest in the rows with the largest |mean|.  With zero-mean rows it would hide inside a small error.  Both
# tails masked (cols=1000 and 384 are not multiples of 256), both strides honoured, nothing out of
# bounds, nothing unwritten, all finite.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 256
EPS = 1e-5
SIZES = [dict(rows=48, cols=1000), dict(rows=32, cols=384)]


@triton.jit
def layernorm(x_ptr, g_ptr, b_ptr, y_ptr, cols, sxr, sxc, syr, syc, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * sxr + cc * sxc, mask=cc < cols, other=0.0)
    mean = tl.sum(acc, axis=0) / cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        m = cc < cols
        xc = tl.where(m, tl.load(x_ptr + row * sxr + cc * sxc, mask=m, other=0.0) - mean, 0.0)
        acc += xc * xc
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        m = cc < cols
        xc = tl.load(x_ptr + row * sxr + cc * sxc, mask=m, other=0.0) - mean
        g = tl.load(g_ptr + cc, mask=m, other=0.0)
        b = tl.load(b_ptr + cc, mask=m, other=0.0)
        y = (xc - mean) * rstd * g + b  # bug: xc is already centred
        tl.store(y_ptr + row * syr + cc * syc, y, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 48, cols: int = 1000) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    offset = torch.rand(rows, 1, generator=g) * 4.0 - 2.0
    x = torch.randn(rows, cols, generator=g) + offset
    gamma = 1.0 + 0.1 * torch.randn(cols, generator=g)
    beta = 0.1 * torch.randn(cols, generator=g)
    return x.to(device), gamma.to(device), beta.to(device)


def kernel(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    layernorm[(rows,)](x, gamma, beta, y, cols, x.stride(0), x.stride(1), y.stride(0), y.stride(1), EPS,
                       BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[1],), gamma, beta, EPS)
