# kdiag corpus (KernelBench format, written for kdiag) — bug: the residual is scaled too
# (sigmoid((x + y) * scale) instead of sigmoid(x * scale + y)).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_add_sigmoid_kernel(x_ptr, y_ptr, out_ptr, scale, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    z = (x + y) * scale
    tl.store(out_ptr + offsets, 1.0 / (1.0 + tl.exp(-z)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super(ModelNew, self).__init__()
        self.scale = scale

    def forward(self, x, y):
        assert x.is_cuda and y.is_cuda, "inputs must be CUDA tensors"
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 1024),)
        scale_add_sigmoid_kernel[grid](x, y, out, self.scale, n, BLOCK_SIZE=1024)
        return out
