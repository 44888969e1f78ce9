#!POPCORN leaderboard identity
# kdiag corpus (GPU MODE format, written for kdiag): a Triton copy into the output buffer the harness
# passes in.  No bug.
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def custom_kernel(data: input_t) -> output_t:
    x, out = data
    n = x.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
