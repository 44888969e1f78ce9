# expected: verdict=pass, category=none, failure_mode=none
# A correct Triton row-wise softmax: one program per row, the whole row in one block of the next power
# of two, padding lanes loaded as -inf (they add exp(-inf) = 0 to the sum), the row maximum subtracted
# before exp so large logits stay finite.
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
