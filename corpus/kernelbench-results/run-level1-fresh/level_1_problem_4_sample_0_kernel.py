# kdiag corpus (KernelBench format, written for kdiag) -- a matrix-vector product on float16 whose
# running sum is a float16 tile: each of the K / 64 additions rounds to float16, so the error grows with
# K and the result misses the float16 check on long rows.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float16)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        x = tl.load(x_ptr + rk, mask=rk < K, other=0.0)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(y_ptr + rm, acc, mask=rm < M)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A = A.contiguous()
        M, K = A.shape
        y = torch.empty((M, 1), device=A.device, dtype=A.dtype)
        matvec_kernel[(triton.cdiv(M, 16),)](A, B.contiguous(), y, M, K, BLOCK_M=16, BLOCK_K=64)
        return y
