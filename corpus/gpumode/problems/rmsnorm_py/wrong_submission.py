#!POPCORN leaderboard rmsnorm
# Bug: the mean of squares divides by the block width (the next power of two) instead of the row
# length, so every row whose length is not a power of two is scaled wrongly (tests 1 and 3).
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / BLOCK
    y = x / tl.sqrt(ms + eps) * w
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x, weight, out = data
    rows, cols = x.shape
    rmsnorm_kernel[(rows,)](x, weight, out, cols, 1e-6, BLOCK=triton.next_power_of_2(cols))
    return out
