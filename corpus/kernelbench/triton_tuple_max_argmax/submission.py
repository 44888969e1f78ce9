# kdiag corpus (KernelBench format, written for kdiag) -- bug: the values are right but the indices are
# written as int32 (torch.max returns int64): the second output of the tuple has the wrong dtype.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def colmax_kernel(x_ptr, v_ptr, i_ptr, R, C, BLOCK: tl.constexpr):
    c = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + r * C + c, mask=r < R, other=-float("inf"))
    tl.store(v_ptr + c, tl.max(vals, axis=0))
    tl.store(i_ptr + c, tl.argmax(vals, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor):
        x = x.contiguous()
        R, C = x.shape
        values = torch.empty(C, device=x.device, dtype=x.dtype)
        indices = torch.empty(C, device=x.device, dtype=torch.int32)
        colmax_kernel[(C,)](x, values, indices, R, C, BLOCK=triton.next_power_of_2(R))
        return values, indices
