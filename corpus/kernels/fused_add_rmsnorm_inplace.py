# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=inputs-mutated
# A fused residual add + RMSNorm, as a transformer block's pre-norm runs it: h = x + residual,
# y = h / sqrt(mean(h^2) + eps) * w, returning (y, h), the normalised activations and the new residual
# stream.  The kernel is ported from an in-place serving kernel (vLLM's fused_add_rms_norm style): it
# stores h back into the `residual` buffer it was given and returns that buffer as its second output,
# where the functional reference returns a new tensor and leaves its inputs alone.  Both outputs are
# right (y within a few ULP, max abs ~1e-6; h bit-exact) at every declared size, but the caller's
# `residual` input now holds x + residual: the inputs are modified by the call.  Calling the kernel a
# second time on the same inputs adds x again (its h is x + x + residual, its y changes): results
# depend on how often it ran.  One program per row, the row in one masked block (hidden=1000, 768),
# both strides of x honoured; nothing is out of bounds or unwritten.  Allocating h (torch.empty_like)
# fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

EPS = 1e-6
SIZES = [dict(rows=32, hidden=1000), dict(rows=17, hidden=768)]


@triton.jit
def add_rmsnorm(x_ptr, res_ptr, w_ptr, y_ptr, cols, sxr, sxc, srr, src, syr, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < cols
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=0.0)
    r = tl.load(res_ptr + row * srr + c * src, mask=m, other=0.0)
    h = x + r
    tl.store(res_ptr + row * srr + c * src, h, mask=m)  # the new residual, written over the input
    rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / cols + eps)
    w = tl.load(w_ptr + c, mask=m, other=0.0)
    tl.store(y_ptr + row * syr + c, h * rstd * w, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, hidden: int = 1000) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, hidden, generator=g)
    residual = torch.randn(rows, hidden, generator=g) * 2.0
    w = torch.rand(hidden, generator=g) + 0.5
    return x.to(device), residual.to(device), w.to(device)


def kernel(x: torch.Tensor, residual: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows, cols = x.shape
    y = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    add_rmsnorm[(rows,)](x, residual, w.contiguous(), y, cols, x.stride(0), x.stride(1),
                         residual.stride(0), residual.stride(1), y.stride(0), EPS,
                         BLOCK=triton.next_power_of_2(cols))
    return y, residual  # in place, as the serving kernel does


def reference(x: torch.Tensor, residual: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = x + residual
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + EPS) * w
    return y, h
