# expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# Bug: the row is loaded with other=0.0, so the padding lanes of the block (from cols up to the next
# power of two) take part in the reductions: each adds exp(0 - max) to the denominator. The max is
# unharmed (softmax is shift-invariant), the sum is too large. Every row of tests 1 (cols 1000, block
# 1024) and 2 (cols 333, block 512) is scaled down by a few percent; test 3 (cols 512, no padding)
# passes. Without a GPU it shows the same way under the interpreter; the same sizes rounded up to a power
# of two pass.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_out + cols, num / den, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x = data
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](x, out, cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out
