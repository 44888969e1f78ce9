# kdiag corpus (KernelBench format, written for kdiag) -- a square float32 matmul whose tl.dot keeps
# Triton's default input precision (TF32 on sm_80 and newer): every product loses 13 mantissa bits, so
# the result misses KernelBench's 1e-4 float32 check on an A100 while the code is otherwise right.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, N, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k0 in range(0, N, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * N + kk[None, :], mask=(rm[:, None] < N) & (kk[None, :] < N), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < N) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < N) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A = A.contiguous()
        B = B.contiguous()
        N = A.shape[0]
        C = torch.empty((N, N), device=A.device, dtype=torch.float32)
        grid = (triton.cdiv(N, 32), triton.cdiv(N, 32))
        matmul_kernel[grid](A, B, C, N, BLOCK=32, BLOCK_K=32)
        return C
