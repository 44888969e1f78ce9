# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Row top-k (k=8) of float32 scores, returning values and int64 indices in descending order as
# torch.topk does, with one program per row and the row in one power-of-two block.  To get the
# indices out of tl.sort, each lane packs its value and its column into one int64 key,
# (bits(x) << 32) | col, sorts the keys descending and unpacks the first k.  The float's bits are
# taken as a signed int32 with no order-preserving transform: for positive floats the int32 order is
# the float order, and negatives sort below positives as they should, but among negative floats the
# order is reversed (-0.1 has a smaller int32 pattern than -5.0), and the padding lanes' -inf
# (0xFF800000, the largest negative pattern) sorts above every other negative value.  Rows with at
# least k positive scores are right; a row with p < k positives gets its p positives right and then
# the wrong negatives: at cols=128 its SMALLEST values in ascending order (-3.40, -3.26, ... where
# the reference has -0.03, -0.06, ...), at cols=100 the padding lanes first (-inf values with column
# indices 127, 126, ..., past the row).  The scores are centred at -1.5 (a classifier's logits), so
# many rows have fewer than 8 positives: 16 of 32 rows wrong at 32x128 (35 of 256 values and
# indices), 13 of 20 at 20x100 (31 of 160, every one of them -inf); every row with at least 8
# positives is right.  Indices are compared exactly; nothing is read or written out of bounds (the
# padding lanes are masked loads with other=-inf, only the first k lanes are stored), every output
# element is written.  Flipping the magnitude bits of negative floats (x ^ 0x7FFFFFFF where x < 0)
# before packing, and back after unpacking, fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

K = 8
SIZES = [dict(rows=32, cols=128), dict(rows=20, cols=100)]


@triton.jit
def row_topk(x_ptr, val_ptr, idx_ptr, cols, sxr, sxc, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < cols, other=float("-inf"))
    bits = x.to(tl.int32, bitcast=True)  # not order-preserving for negative floats
    key = (bits.to(tl.int64) << 32) | c.to(tl.int64)
    key = tl.sort(key, descending=True)
    vals = (key >> 32).to(tl.int32).to(tl.float32, bitcast=True)
    idx = key & 0xFFFFFFFF
    tl.store(val_ptr + row * K + c, vals, mask=c < K)
    tl.store(idx_ptr + row * K + c, idx, mask=c < K)


def make_inputs(device: str, seed: int = 0, rows: int = 32, cols: int = 128) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) - 1.5).to(device),)


def kernel(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows, cols = x.shape
    vals = torch.empty((rows, K), dtype=x.dtype, device=x.device)
    idx = torch.empty((rows, K), dtype=torch.int64, device=x.device)
    row_topk[(rows,)](x, vals, idx, cols, x.stride(0), x.stride(1), K=K, BLOCK=triton.next_power_of_2(cols))
    return vals, idx


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    v, i = torch.topk(x, K, dim=1)
    return v, i
