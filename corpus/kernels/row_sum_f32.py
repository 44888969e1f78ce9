# kdiag corpus kernel — expected: verdict=pass, category=none
# A float32 row sum that adds each row in BLOCK-wide chunks (a tree reduction per chunk, then a
# running sum over chunks): its summation order differs from torch.sum's, so the results differ
# in the last bits (a few ULP of the row sum), which is expected variation, not a defect: the
# default float32 tolerance must pass it.  Masked loads (other=0) handle rows that are not a
# multiple of BLOCK.  Both strides are passed, so transposed and sliced inputs (kdiag's layout probes)
# are summed correctly too.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 512
SIZES = [dict(rows=64, cols=4096), dict(rows=37, cols=3000)]


@triton.jit
def row_sum(x_ptr, out_ptr, cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride_row + offs * stride_col, mask=offs < cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(rows, cols, generator=g).to(device),)  # positive: no cancellation


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    row_sum[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)
