# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=uninitialized-read
# A split row sum: the columns of each row are split over SPLIT=4 programs, each of which adds its
# partial sum into out[row] with tl.atomic_add.  The output is allocated with torch.empty instead of
# torch.zeros, so the first atomic add reads memory nobody wrote: every output is its correct sum
# plus whatever the allocation held.  Where the allocator hands back zeroed pages the result can look
# right by chance; with a filled allocation (a harness's NaN or pattern sentinel, a reused block on a
# GPU) every element is off by the same garbage.  Nothing is out of bounds; on a GPU,
# compute-sanitizer initcheck reports the uninitialized read by the atomic.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SPLIT = 4
BLOCK = 128
SIZES = [dict(rows=32, cols=1024), dict(rows=20, cols=900)]


@triton.jit
def split_row_sum(x_ptr, out_ptr, cols, stride_r, stride_c, chunk, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lo = tl.program_id(1) * chunk
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, chunk, BLOCK):
        offs = lo + start + tl.arange(0, BLOCK)
        m = (offs < cols) & (offs < lo + chunk)
        acc += tl.load(x_ptr + row * stride_r + offs * stride_c, mask=m, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(acc, axis=0))


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 1024) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(rows, cols, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)  # bug: torch.zeros
    chunk = triton.cdiv(cols, SPLIT)
    split_row_sum[(rows, SPLIT)](x, out, cols, x.stride(0), x.stride(1), chunk, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)
