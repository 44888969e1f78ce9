# kdiag corpus (KernelBench format, written for kdiag) -- bug: a 2-D tiled kernel (32 x 64 tiles) that
# masks the rows but not the columns; 1000 columns is not a multiple of 64, so the last column tile
# reads the bias past its end and writes 24 lanes per row past the row's end (into the next row, and
# past the output for the last rows).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_bias_kernel(x_ptr, b_ptr, y_ptr, M, N, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = rm[:, None] < M
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + rn)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], x * scale + b[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cols: int, scale: float):
        super(ModelNew, self).__init__()
        self.bias = nn.Parameter(torch.randn(cols))
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 64))
        scale_bias_kernel[grid](x, self.bias, y, M, N, self.scale, BLOCK_M=32, BLOCK_N=64)
        return y
