# kdiag corpus (KernelBench format, written for kdiag): mean over dim 1, one program per (batch, block
# of dim2 columns), walking dim 1 in chunks of 128 with a row mask and a float32 sum, divided by the
# true length.  No bug.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_dim1_kernel(x_ptr, out_ptr, D1, D2, s0, s1, s2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, D1, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        v = tl.load(x_ptr + b * s0 + rows[:, None] * s1 + cols[None, :] * s2,
                    mask=(rows[:, None] < D1) & (cols[None, :] < D2), other=0.0)
        acc += tl.sum(v, axis=0)
    tl.store(out_ptr + b * D2 + cols, acc / D1, mask=cols < D2)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=x.dtype)
        grid = (B, triton.cdiv(D2, 32))
        mean_dim1_kernel[grid](x, out, D1, D2, x.stride(0), x.stride(1), x.stride(2), BLOCK_R=128, BLOCK_C=32)
        return out
