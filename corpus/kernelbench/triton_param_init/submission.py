# kdiag corpus (KernelBench format, written for kdiag): correct - the same parameters made in the
# same order; one program per (batch, channel) row.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def channel_affine_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, L, BLOCK_L: tl.constexpr):
    row = tl.program_id(0)
    c = row % C
    w = tl.load(w_ptr + c)
    b = tl.load(b_ptr + c)
    for start in range(0, L, BLOCK_L):
        offs = start + tl.arange(0, BLOCK_L)
        mask = offs < L
        x = tl.load(x_ptr + row * L + offs, mask=mask, other=0.0)
        tl.store(out_ptr + row * L + offs, x * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels):
        super(ModelNew, self).__init__()
        self.weight = nn.Parameter(torch.randn(channels))
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x):
        assert x.is_cuda, "Input must be on CUDA"
        x = x.contiguous()
        B, C, L = x.shape
        out = torch.empty_like(x)
        channel_affine_kernel[(B * C,)](x, self.weight, self.bias, out, C, L, BLOCK_L=128)
        return out
