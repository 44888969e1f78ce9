# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Per-row symmetric int8 quantization of float32 activations: scale[r] = max|x[r, :]| / 127 and
# q[r, c] = round(x[r, c] / scale[r]) clamped to [-127, 127], returned as (q int8, scale float32).
# The kernel computes the scale exactly as the reference does (the same float32 max and division),
# but converts x / scale with `.to(tl.int8)`, which truncates toward zero (C's float-to-int
# conversion, on a GPU and under the interpreter alike) where the reference rounds to nearest:
# every element whose fractional part is at least 0.5 in magnitude comes out one step closer to 0.
# Integers are compared exactly: about half of q is wrong by exactly 1 (16264 of 32768 at 64x512,
# 2873 of 6000 at 30x200), spread over every row and column, signed toward zero; each row's maximum
# (exactly +-127) and the scales are right.  Nothing out of bounds, every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=512), dict(rows=30, cols=200)]


@triton.jit
def quant_rows(x_ptr, q_ptr, s_ptr, cols, sxr, sxc, sqr, sqc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    amax = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + offs * sxc, mask=offs < cols, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.max(amax, axis=0) / 127.0
    tl.store(s_ptr + row, scale)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        x = tl.load(x_ptr + row * sxr + offs * sxc, mask=m, other=0.0).to(tl.float32)
        y = tl.minimum(tl.maximum(x / scale, -127.0), 127.0)
        tl.store(q_ptr + row * sqr + offs * sqc, y.to(tl.int8), mask=m)  # bug: truncates; round first


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(rows, cols, generator=g).to(device),)


def kernel(x: torch.Tensor):
    rows, cols = x.shape
    q = torch.empty((rows, cols), dtype=torch.int8, device=x.device)
    scale = torch.empty(rows, dtype=torch.float32, device=x.device)
    quant_rows[(rows,)](x, q, scale, cols, x.stride(0), x.stride(1), q.stride(0), q.stride(1), BLOCK=BLOCK)
    return q, scale


def reference(x: torch.Tensor):
    scale = x.float().abs().amax(dim=1) / 127.0
    q = torch.round(x.float() / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale
