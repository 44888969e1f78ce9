# The matrix-vector product with its running sum kept in float16 (tl.zeros(..., dtype=tl.float16)), each
# block's float32 partial sum cast to it: every output is off by a small relative amount that grows
# with k, and the problem's check_implementation (rtol 1e-4) rejects it.  The problem has one test, so
# kdiag measures the growth by re-running it at k/16 and k/4; submission.py is the correct twin.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, m, k, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float16)
    for k0 in range(0, k, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :],
                    mask=(rows[:, None] < m) & (cols[None, :] < k), other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < k, other=0.0)
        acc += tl.sum(a.to(tl.float32) * x.to(tl.float32)[None, :], axis=1).to(tl.float16)
    tl.store(y_ptr + rows, acc.to(tl.float32), mask=rows < m)


def custom_kernel(data: input_t) -> output_t:
    a, x = data
    m, k = a.shape
    y = torch.empty(m, dtype=torch.float32, device=a.device)
    matvec_kernel[(triton.cdiv(m, 16),)](a, x, y, m, k, a.stride(0), BLOCK_M=16, BLOCK_K=64)
    return y
