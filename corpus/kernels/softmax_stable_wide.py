# kdiag corpus kernel — expected: verdict=pass, category=none
# A row softmax that subtracts the row maximum before exp (masked lanes load -inf, so they neither
# raise the max nor add to the sum: exp(-inf) = 0).  The column count is not a power of two and the
# whole row fits one BLOCK (the next power of two).  Large logits (scale=60, where a softmax without
# the max subtraction overflows float32) stay finite and match torch.softmax to a few ULP.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(rows=32, cols=200, scale=1.0), dict(rows=16, cols=1000, scale=60.0)]


@triton.jit
def softmax(x_ptr, out_ptr, cols, sxr, sxc, sor, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    x = tl.load(x_ptr + row * sxr + offs * sxc, mask=m, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * sor + offs, e / tl.sum(e, axis=0), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 200, scale: float = 1.0) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * scale).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    softmax[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0),
                     BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=1)
