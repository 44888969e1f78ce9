# kdiag corpus kernel — expected: verdict=pass, category=none
# A row-wise inclusive prefix sum, out[r, c] = sum_{j <= c} x[r, j], over rows longer than one block:
# each program walks its row in BLOCK chunks, scans each chunk with tl.cumsum and adds the running
# total of all earlier chunks (the carry), then advances the carry by the chunk's sum.  The masked
# tail lanes load 0.0 (neutral for a sum) and are not stored.  The sums are kept in float32 and stored
# in the input's dtype; for float32 inputs the only difference from torch.cumsum is the order of the
# additions (a few ULP of the running sum).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=16, cols=1024), dict(rows=9, cols=700)]


@triton.jit
def row_cumsum(x_ptr, out_ptr, cols, sxr, sxc, sor, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        x = tl.load(x_ptr + row * sxr + offs * sxc, mask=m, other=0.0).to(tl.float32)
        s = tl.cumsum(x, axis=0) + carry
        tl.store(out_ptr + row * sor + offs, s, mask=m)
        carry += tl.sum(x, axis=0)


def make_inputs(device: str, seed: int = 0, rows: int = 16, cols: int = 1024) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(rows, cols, generator=g).to(device),)  # positive: sums grow, no cancellation


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    row_cumsum[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=1)
