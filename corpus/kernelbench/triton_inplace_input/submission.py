# kdiag corpus (KernelBench format, written for kdiag): the kernel overwrites its input with the
# result and returns it.  The values are right; the caller's tensor is changed (KernelBench makes new
# inputs for every trial, so its check passes).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_inplace_kernel(x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    e = tl.exp(-2.0 * x)
    tl.store(x_ptr + offsets, (1.0 - e) / (1.0 + e), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.is_cuda and x.is_contiguous()
        n_elements = x.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        tanh_inplace_kernel[grid](x, n_elements, BLOCK_SIZE=1024)
        return x
