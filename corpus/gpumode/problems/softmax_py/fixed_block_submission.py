# expected: verdict=assumption, category=runtime-assumption, failure_mode=shape-not-multiple-of-block
# Bug: the block is fixed at 1024 columns ("the tests have at most 1000"), one block per row and no
# loop over the row. It is correct whenever cols <= 1024, so all three tests pass. The task allows
# cols up to 8192 and the benchmark has cols = 4096: there only the first 1024 columns are read (the
# softmax is normalised over them alone) and columns 1024.. of the output are never written
# (torch.empty garbage). Without a GPU the tests pass under the interpreter; a run at cols > 1024 shows
# whole column ranges past 1024 wrong in every row, and the first 1024 columns too large.
import torch
import triton
import triton.language as tl
from task import input_t, output_t

BLOCK = 1024


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_out + cols, num / den, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x = data
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](x, out, cols, x.stride(0), out.stride(0), BLOCK=BLOCK)
    return out
