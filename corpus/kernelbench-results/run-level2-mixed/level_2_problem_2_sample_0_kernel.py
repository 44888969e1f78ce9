# kdiag corpus (KernelBench format, written for kdiag) -- bug: the reduction walks dim 1 with the
# stride of dim 2 (1 instead of dim2), so each output sums a run of contiguous elements of one row.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, out_ptr, D1, D2, s0, s1, s2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cblk = tl.program_id(1)
    cols = cblk * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, D1, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        ptrs = x_ptr + b * s0 + rows[:, None] * s2 + cols[None, :] * s2
        vals = tl.load(ptrs, mask=(rows[:, None] < D1) & (cols[None, :] < D2), other=0.0)
        acc += tl.sum(vals, axis=0)
    tl.store(out_ptr + b * D2 + cols, acc, mask=cols < D2)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 1
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.empty((B, 1, D2), device=x.device, dtype=x.dtype)
        grid = (B, triton.cdiv(D2, 32))
        sum_dim1_kernel[grid](x, out, D1, D2, x.stride(0), x.stride(1), x.stride(2), BLOCK_R=32, BLOCK_C=32)
        return out
