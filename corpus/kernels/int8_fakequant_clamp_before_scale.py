# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Symmetric int8 fake quantization with a static per-tensor scale (quantization-aware training with a
# delayed, history-based scale, the same recipe as an FP8 scaled cast): q = round(clamp(x * s, -127,
# 127)), y = q / s, where s = 127 / amax comes from an earlier step's amax history (amax = 1300, s ~
# 0.0977) and is passed as a one-element tensor; rounding is half away from zero written as
# floor(v + 0.5) on both sides, so the arithmetic is identical op for op.  The kernel clamps BEFORE
# scaling, q = round(clamp(x, -127, 127) * s): the clamp bounds are the integer range, which applies to
# x * s, not to x.  With s < 1 every |x| above 127 is cut to 127 before the scale, so y = +-12 / s
# (~+-122.8) where the reference keeps ~x (up to ~1200): the activations are randn * 40 with 0.2%
# outliers of 300..1200 (as transformer activations have), and only elements with |x| > 127 are
# wrong (213 of 65536 at 64x1024, of the 219 above 127: a value just above it lands on the same level
# either way; 80 of 24000 at 40x600), by up to ~1075, scattered (no row, column, block or tail
# pattern); every other element is bit-exact (the first bad at flat index 59).  Nothing is out of bounds, nothing NaN,
# every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

QMAX = 127.0
AMAX_HISTORY = 1300.0
BLOCK = 1024
SIZES = [dict(rows=64, cols=1024), dict(rows=40, cols=600)]


@triton.jit
def int8_fakequant(x_ptr, s_ptr, y_ptr, n, QMAX: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    s = tl.load(s_ptr)
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    v = tl.minimum(tl.maximum(x, -QMAX), QMAX) * s
    q = tl.where(v >= 0, tl.floor(v + 0.5), -tl.floor(-v + 0.5))
    tl.store(y_ptr + offs, q / s, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 1024) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * 40.0
    k = max(1, rows * cols // 500)
    pos = torch.randperm(rows * cols, generator=g)[:k]
    x.view(-1)[pos] = torch.sign(x.view(-1)[pos]) * (300.0 + 900.0 * torch.rand(k, generator=g))
    scale = torch.tensor([QMAX / AMAX_HISTORY], dtype=torch.float32)
    return x.to(device), scale.to(device)


def kernel(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    xc = x.contiguous()
    y = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    n = xc.numel()
    int8_fakequant[(triton.cdiv(n, BLOCK),)](xc, scale, y, n, QMAX=QMAX, BLOCK=BLOCK)
    return y


def reference(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    s = scale.float()
    v = (x.float() * s).clamp(-QMAX, QMAX)
    q = torch.where(v >= 0, torch.floor(v + 0.5), -torch.floor(-v + 0.5))
    return q / s
