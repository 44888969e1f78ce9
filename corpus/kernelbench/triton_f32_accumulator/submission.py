# kdiag corpus (KernelBench format, written for kdiag) — expected: verdict=pass.  The correct twin of
# ../triton_fp16_accumulator: the same Triton matrix-vector product, summed in float32 from float32 loads
# (it differs from torch.matmul only in the order of the additions, inside the default tolerance).  A
# narrow-accumulator check that fired here would be a false alarm.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, b_ptr, c_ptr, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :],
                    mask=(rows[:, None] < M) & (cols[None, :] < K), other=0.0)
        b = tl.load(b_ptr + cols, mask=cols < K, other=0.0)
        acc += tl.sum(a * b[None, :], axis=1)
    tl.store(c_ptr + rows, acc, mask=rows < M)


def triton_matvec(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    assert A.is_cuda and B.is_cuda, "Tensors must be on CUDA."
    A, B = A.contiguous(), B.contiguous()
    M, K = A.shape
    C = torch.empty((M, 1), device=A.device, dtype=torch.float32)
    BLOCK_M, BLOCK_K = 16, 128
    matvec_kernel[(triton.cdiv(M, BLOCK_M),)](A, B, C, M, K, A.stride(0), BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
    return C


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return triton_matvec(A, B)
