# kdiag corpus (KernelBench format, written for kdiag) -- bug: a per-batch bias of shape (batch, dim2) is
# added to the (batch, dim1, dim2) result without its middle axis (bias[:, None, :]), which cannot broadcast.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * s, mask=m)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super(ModelNew, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, self.scale, BLOCK=1024)
        return bias + y
