# expected: verdict=pass, category=none, failure_mode=none
# A correct Triton layer norm: one program per row, the row in one block of the next power of two,
# mean and biased variance in float32 with the padding lanes kept out of the variance (tl.where).
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_out, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_out + cols, diff * rstd * w + b, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x, weight, bias = data
    rows, cols = x.shape
    out = torch.empty_like(x)
    layernorm_kernel[(rows,)](x, weight, bias, out, cols, x.stride(0), out.stride(0), 1e-5,
                              BLOCK=triton.next_power_of_2(cols))
    return out
