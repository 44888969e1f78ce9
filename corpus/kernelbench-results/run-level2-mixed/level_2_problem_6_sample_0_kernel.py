# kdiag corpus (KernelBench format, written for kdiag) -- bug: the reference sums dim 1 with keepdim=True,
# (batch, 1, dim2); this kernel returns (batch, dim2) without the kept axis.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, out_ptr, D1, D2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, D1, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        vals = tl.load(x_ptr + b * D1 * D2 + rows[:, None] * D2 + cols[None, :],
                       mask=(rows[:, None] < D1) & (cols[None, :] < D2), other=0.0)
        acc += tl.sum(vals, axis=0)
    tl.store(out_ptr + b * D2 + cols, acc, mask=cols < D2)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=x.dtype)
        sum_dim1_kernel[(B, triton.cdiv(D2, 32))](x, out, D1, D2, BLOCK_R=32, BLOCK_C=32)
        return out
