# kdiag corpus (KernelBench format, written for kdiag): masked_fill in Triton, the bool mask read through
# a uint8 view (torch.bool has no Triton pointer type of its own in older releases).  No bug.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def masked_fill_kernel(x_ptr, m_ptr, y_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    x = tl.load(x_ptr + offs, mask=inb)
    m = tl.load(m_ptr + offs, mask=inb, other=0)
    tl.store(y_ptr + offs, tl.where(m != 0, value, x), mask=inb)


class ModelNew(nn.Module):
    def __init__(self, value: float):
        super(ModelNew, self).__init__()
        self.value = value

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        m = mask.contiguous().view(torch.uint8)
        y = torch.empty_like(x)
        n = x.numel()
        masked_fill_kernel[(triton.cdiv(n, 512),)](x, m, y, n, self.value, BLOCK=512)
        return y
