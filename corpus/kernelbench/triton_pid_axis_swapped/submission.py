# kdiag corpus (KernelBench format, written for kdiag) -- bug: the grid is (row blocks, column blocks) but
# the kernel takes its row block from tl.program_id(1) and its column block from tl.program_id(0).  With
# 8 row blocks and 3 column blocks, rows 96..255 are never written (and the masks hide the overrun).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(0)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    s = tl.load(s_ptr + rm, mask=rm < M, other=0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], x * s[:, None], mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        row_scale_kernel[grid](x, s, y, M, N, BLOCK_M=32, BLOCK_N=32)
        return y
