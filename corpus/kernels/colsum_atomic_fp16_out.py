# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# Column sums of a tall float16 matrix, out[c] = sum_r x[r, c], returned in float16 as torch returns
# them (torch sums float16 in float32 and rounds once).  The rows are split over many programs (8 rows
# each: 1024 programs at rows=8192): each sums its slice in float32, then tl.atomic_add's its partial
# into a zeroed float16 output.  Every atomic add rounds the running total to float16, so each column
# total is accumulated in float16 over 1024 (or 128) additions, and the rounding errors of those adds
# pile up far beyond the 1-2 ULP a single rounding explains: at rows=8192, 28 of 64 columns fall outside
# the float16 tolerance (median rel error 1.9e-3, up to 15 ULP); at rows=1024, 7 of 96 (median rel
# 1.0e-3, up to 8 ULP); 256 rows would pass (3 ULP at most).  The error grows with the reduction length
# (the row count: an input dimension that is no output's), the errors are small and spread over the
# columns with no index pattern.  Nothing is out of bounds, the output is zeroed first, every column is
# written.  On a GPU the order of the atomics also varies, so the low bits change between runs; a
# float32 output (or the partials reduced in float32 and rounded once) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_R, BLOCK_C = 8, 64
SIZES = [dict(rows=8192, cols=64), dict(rows=1024, cols=96)]


@triton.jit
def colsum_atomic(x_ptr, out_ptr, rows, cols, sxr, sxc, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rr = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cc = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = (rr[:, None] < rows) & (cc[None, :] < cols)
    v = tl.load(x_ptr + rr[:, None] * sxr + cc[None, :] * sxc, mask=m, other=0.0).to(tl.float32)
    part = tl.sum(v, axis=0)
    tl.atomic_add(out_ptr + cc, part.to(tl.float16), mask=cc < cols)  # float16 running total


def make_inputs(device: str, seed: int = 0, rows: int = 8192, cols: int = 64) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(rows, cols, generator=g).to(torch.float16).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.zeros(cols, dtype=torch.float16, device=x.device)
    grid = (triton.cdiv(rows, BLOCK_R), triton.cdiv(cols, BLOCK_C))
    colsum_atomic[grid](x, out, rows, cols, x.stride(0), x.stride(1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=0)
