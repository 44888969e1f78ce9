# kdiag corpus (KernelBench format, written for kdiag) -- bug: the row is scanned in blocks of 1024
# with tl.cumsum, but the running total of the earlier blocks is never added: every element after the
# first block of a row restarts from zero (the first 1024 columns are right).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        y = tl.cumsum(x, axis=0)
        tl.store(y_ptr + row * N + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 1 and x.dim() == 2
        x = x.contiguous()
        y = torch.empty_like(x)
        cumsum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
        return y
