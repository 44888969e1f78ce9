# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# Per-row totals of int32 counts (byte sizes of the items in each row, up to 4 MiB each), returned as
# int64 as torch.sum returns them for int32 input (it widens integer sums to int64).  The kernel
# allocates the int64 output but keeps the running total in int32, the input's type: each block of
# 256 values is summed with tl.sum (at most 2^30, which fits) and added to an int32 scalar, widened to
# int64 only at the store.  At the declared cols=2048 every row total is ~4.3e9, past int32's
# 2^31 - 1: the running total wraps around modulo 2^32 (on a GPU and under the interpreter alike: an
# int32 add), and every row comes out exactly 2^32 = 4294967296 too small (26325384 for 4321292680,
# -83689851 for 4211277445): 16 of 16 rows wrong, integers compared exactly.  At the declared
# cols=256 the totals stay below 2^31 (at most ~5.7e8) and every row is right.  No out-of-bounds
# access, every element written: an accumulator too narrow for the range of the sum (an int64
# running total fixes it).
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=16, cols=256), dict(rows=16, cols=2048)]


@triton.jit
def row_total(x_ptr, out_ptr, cols, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros((), dtype=tl.int32)  # bug: the running total needs tl.int64
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + offs * sxc, mask=offs < cols, other=0)
        total += tl.sum(x, axis=0)  # one block's sum (< 2^30) fits int32; the running total does not
    tl.store(out_ptr + row, total.to(tl.int64))


def make_inputs(device: str, seed: int = 0, rows: int = 16, cols: int = 256):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randint(0, 1 << 22, (rows, cols), generator=g, dtype=torch.int32).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.int64, device=x.device)
    row_total[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)
