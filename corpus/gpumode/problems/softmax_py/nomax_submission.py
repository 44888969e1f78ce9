# expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# Bug: the row maximum is not subtracted before exp ("softmax is shift-invariant, and randn logits are
# small"). Tests 1 and 2 (scale 1) pass. Test 3 has logits scaled by 40 (up to ~150): exp overflows
# float32 past ~88.7, the row sum becomes inf and the outputs inf/inf = NaN or x/inf = 0, where the
# reference is finite. Without a GPU the interpreter shows the same NaNs (and numpy overflow warnings)
# in test 3 only, in the rows whose maximum is above ~88.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_out + cols, num / den, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x = data
    rows, cols = x.shape
    out = torch.empty_like(x)
    softmax_kernel[(rows,)](x, out, cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(cols))
    return out
