# kdiag corpus (KernelBench format, written for kdiag) — expected: verdict=fail, category=kernel-logic,
# failure_mode=wrong-accumulation-precision, rule numerics-run-narrow-accumulator.  A tiled Triton matmul
# whose tile accumulator is float16 (tl.zeros(..., dtype=tl.float16)), each K-step's tl.dot cast to it.
# The problem has one size constant N for M, N and K alike, so the reduction dimension cannot be told
# from the shapes and kdiag does not re-run at a shorter K (it says so); the source's accumulator type
# and the small errors on every element decide instead.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee").to(tl.float16)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float32), mask=(rm[:, None] < M) & (rn[None, :] < N))


def triton_matmul(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    assert A.is_cuda and B.is_cuda, "Tensors must be on CUDA."
    A, B = A.contiguous(), B.contiguous()
    M, K = A.shape
    _, N = B.shape
    C = torch.empty((M, N), device=A.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    matmul_kernel[grid](A, B, C, M, N, K, A.stride(0), B.stride(0), C.stride(0), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return C


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return triton_matmul(A, B)
