# kdiag corpus (KernelBench format, written for kdiag): argmin over dim 0 of a (dim0, dim1) tensor, one
# program per block of columns walking the rows in chunks, keeping the running minimum and its row.  No
# bug (ties cannot occur with randn).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmin_dim0_kernel(x_ptr, out_ptr, R, C, stride_r, stride_c, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < C
    best = tl.full((BLOCK_C,), float("inf"), dtype=tl.float32)
    best_idx = tl.zeros((BLOCK_C,), dtype=tl.int64)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        v = tl.load(x_ptr + rows[:, None] * stride_r + cols[None, :] * stride_c,
                    mask=(rows[:, None] < R) & cmask[None, :], other=float("inf"))
        blk_min = tl.min(v, axis=0)
        blk_idx = tl.argmin(v, axis=0).to(tl.int64) + r0
        take = blk_min < best
        best = tl.where(take, blk_min, best)
        best_idx = tl.where(take, blk_idx, best_idx)
    tl.store(out_ptr + cols, best_idx, mask=cmask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 0
        R, C = x.shape
        out = torch.empty((C,), device=x.device, dtype=torch.int64)
        argmin_dim0_kernel[(triton.cdiv(C, 32),)](x, out, R, C, x.stride(0), x.stride(1), BLOCK_R=64, BLOCK_C=32)
        return out
