# kdiag corpus (KernelBench format, written for kdiag) -- bug: B's batch offset uses A's batch stride
# (m * k instead of k * n), so every batch after the first multiplies by the wrong slice of B.  float16
# tiles, float32 accumulator.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_b = tl.program_id(2)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_base = a_ptr + pid_b * stride_ab
    b_base = b_ptr + pid_b * stride_ab
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_base + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_base + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c = acc.to(tl.float16)
    tl.store(c_ptr + pid_b * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A = A.contiguous()
        B = B.contiguous()
        batch, M, K = A.shape
        N = B.shape[2]
        C = torch.empty((batch, M, N), device=A.device, dtype=A.dtype)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32), batch)
        bmm_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), A.stride(2), B.stride(0), B.stride(1),
                         B.stride(2), C.stride(0), C.stride(1), C.stride(2), BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        return C
