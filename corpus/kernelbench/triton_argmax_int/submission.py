# kdiag corpus (KernelBench format, written for kdiag): argmax over dim 1 in Triton, one program per
# (batch, column); int64 indices written through an int64 output.  No bug (ties cannot occur with randn).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_dim1_kernel(x_ptr, out_ptr, D1, D2, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1)
    r = tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + b * D1 * D2 + r * D2 + c, mask=r < D1, other=-float("inf"))
    idx = tl.argmax(vals, axis=0)
    tl.store(out_ptr + b * D2 + c, idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=torch.int64)
        argmax_dim1_kernel[(B, D2)](x, out, D1, D2, BLOCK=triton.next_power_of_2(D1))
        return out
