# expected: verdict=pass, category=none, failure_mode=none
# Not a failure: to save an allocation the kernel writes the normalised rows back into x (each program
# has read its whole row before it stores) and returns x. The result is right. GPU MODE's runner hands
# custom_kernel a copy of the generated data and checks against the data it kept, so overwriting the
# input changes nothing the check reads; only a caller that calls the kernel and then the reference on
# the same tensors would see the reference normalise the output again. Without a GPU the interpreter
# gives the same values: all three tests pass (the input is overwritten, which a tool may note).
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def layernorm_inplace_kernel(x_ptr, w_ptr, b_ptr, n_cols, stride_x, eps, BLOCK: tl.constexpr):
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
    tl.store(x_ptr + row * stride_x + cols, diff * rstd * w + b, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x, weight, bias = data
    rows, cols = x.shape
    layernorm_inplace_kernel[(rows,)](x, weight, bias, cols, x.stride(0), 1e-5, BLOCK=triton.next_power_of_2(cols))
    return x
