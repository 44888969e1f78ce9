# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# A row sum of a float16 matrix into float32, as the reference computes it (x.float().sum(1)), but
# the running sum is kept in float16, the input's type: every chunk's sum is rounded to float16 and
# added to a float16 accumulator, whose ULP grows with the sum (0.25 at 256, 2 at 2048).  Every row
# is off by a small relative amount (1e-4 .. 1e-2: ~10 significant bits left of float32's 24), and
# the error grows with the row length: cols=8192 is several times worse than cols=512.  No index is
# wrong, nothing is out of bounds: it is a precision choice, and a float32 accumulator fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 64
SIZES = [dict(rows=64, cols=512), dict(rows=64, cols=8192)]


@triton.jit
def row_sum(x_ptr, out_ptr, cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((), dtype=tl.float16)  # bug: the accumulator has the input's type (tl.float32 is right)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < cols, other=0.0)
        acc += tl.sum(x, axis=0).to(tl.float16)
    tl.store(out_ptr + row, acc.to(tl.float32))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(rows, cols, generator=g).to(torch.float16).to(device),)  # positive: no cancellation


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    row_sum[(rows,)](x, out, cols, x.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.float().sum(dim=1)
