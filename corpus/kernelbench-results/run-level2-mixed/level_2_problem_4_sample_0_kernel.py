# kdiag corpus (KernelBench format, written for kdiag) -- bug: a (32, 8) @ (8, 32) float16 product with
# tl.dot, whose K (8) is below the 16 Triton's dot needs: triton.compile rejects it.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def small_k_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b))


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        C = torch.empty((A.shape[0], B.shape[1]), device=A.device, dtype=torch.float32)
        small_k_dot[(1,)](A.contiguous(), B.contiguous(), C, BM=32, BN=32, BK=8)
        return C
