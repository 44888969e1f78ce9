# A correct Triton matrix-vector product for the harness's inputs: float16 loads, products and running
# sum in float32, one rounding at the store (float32 output, as the reference's).
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, m, k, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :],
                    mask=(rows[:, None] < m) & (cols[None, :] < k), other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < k, other=0.0)
        acc += tl.sum(a.to(tl.float32) * x.to(tl.float32)[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < m)


def custom_kernel(data: input_t) -> output_t:
    a, x = data
    m, k = a.shape
    y = torch.empty(m, dtype=torch.float32, device=a.device)
    matvec_kernel[(triton.cdiv(m, 16),)](a, x, y, m, k, a.stride(0), BLOCK_M=16, BLOCK_K=64)
    return y
