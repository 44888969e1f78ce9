#!POPCORN leaderboard identity
# kdiag corpus (GPU MODE format, written for kdiag) -- bug: it keeps state between calls: the first
# call's result is cached by size and returned again for the next input of that size, so the second
# test (same size, other seed) gets the first test's values.
import torch
import triton
import triton.language as tl
from task import input_t, output_t

_results: dict[int, torch.Tensor] = {}


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def custom_kernel(data: input_t) -> output_t:
    x, out = data
    n = x.numel()
    if n in _results:
        return _results[n]
    copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    _results[n] = out
    return out
