# kdiag corpus kernel — expected: verdict=pass, category=none
# A fused elementwise op with broadcasting, out[r, c] = relu(x[r, c] * s[r] + b[c]): a per-row scale
# (an (R, 1) tensor) and a per-column bias (a (C,) vector) broadcast against the (R, C) input inside
# one kernel.  One program per row, the columns walked in masked BLOCK chunks; x's two strides and
# each vector's stride are honoured.  One fused multiply-add and a max per element: the result
# equals torch's to a rounding of the multiply-add at most.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=512), dict(rows=19, cols=300)]


@triton.jit
def scale_bias_relu(x_ptr, s_ptr, b_ptr, out_ptr, cols, sxr, sxc, ss, sb, sor,
                    BLOCK: tl.constexpr):
    row = tl.program_id(0)
    s = tl.load(s_ptr + row * ss)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        x = tl.load(x_ptr + row * sxr + offs * sxc, mask=m)
        b = tl.load(b_ptr + offs * sb, mask=m)
        tl.store(out_ptr + row * sor + offs, tl.maximum(x * s + b, 0.0), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g)
    s = torch.rand(rows, 1, generator=g) + 0.5
    b = torch.randn(cols, generator=g) * 0.1
    return x.to(device), s.to(device), b.to(device)


def kernel(x: torch.Tensor, s: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    scale_bias_relu[(rows,)](x, s, b, out, cols, x.stride(0), x.stride(1), s.stride(0), b.stride(0),
                             out.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, s: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.relu(x * s + b[None, :])
