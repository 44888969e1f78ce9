# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-write
# Batch-norm inference on an (M, C) activation folded into a per-channel affine,
# out[r, c] = x[r, c] * scale[c] + shift[c], tiled in 32x32 tiles, with the 2-D mask written
# (rm < M) & (rn < M): the row count is used for both axes where the column test must be rn < C.
# The declared shapes have many more rows than channels (M=256, C=40 and M=100, C=72: both leave 24
# padding lanes in the last column tile), so those lanes rn = C .. C+23 are enabled too: they read
# scale and shift 24 elements past their ends, read x at r*C + rn, i.e. the first 24 elements of the
# NEXT row, and store there in out.  The last row's extra lanes write 24 elements past the end of out
# (and read as far past x); the other rows' extra lanes overwrite the first 24 elements of the next
# row with x[r+1, j] * scale[C + j] + shift[C + j], garbage from past the vectors.  Whether a row's
# head keeps the garbage depends on the order the tiles run: under the interpreter column tile 0 of a
# row block runs before its last column tile, so the garbage wins inside a row block and loses across
# it.  With NaN guard regions after the inputs: the first 24 columns are wrong (NaN) in 248 of 256 rows
# (5952 elements) and 96 of 100 rows (2304 elements), every other element right, and 24 elements past
# the end of out are written.  The plain interpreter corrupts the heap there (a glibc abort such as
# "free(): invalid next size" or "malloc(): unaligned tcache chunk detected").  On a GPU: memcheck
# "Invalid __global__ write" just past out (and reads past scale, shift and x).  A square or wide
# shape (C >= M), or C a multiple of 32, would hide it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM, BN = 32, 32
SIZES = [dict(m=256, c=40), dict(m=100, c=72)]


@triton.jit
def bn_affine(x_ptr, scale_ptr, shift_ptr, out_ptr, M, C, sxm, sxc, som, soc, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < M)  # should be rn < C
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxc, mask=mask, other=0.0)
    s = tl.load(scale_ptr + rn, mask=rn < M, other=0.0)
    b = tl.load(shift_ptr + rn, mask=rn < M, other=0.0)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * soc, x * s[None, :] + b[None, :], mask=mask)


def make_inputs(device: str, seed: int = 0, m: int = 256, c: int = 40) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(m, c, generator=g)
    scale = torch.rand(c, generator=g) + 0.5
    shift = torch.randn(c, generator=g)
    return x.to(device), scale.to(device), shift.to(device)


def kernel(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    M, C = x.shape
    out = torch.empty((M, C), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(M, BM), triton.cdiv(C, BN))
    bn_affine[grid](x, scale.contiguous(), shift.contiguous(), out, M, C, x.stride(0), x.stride(1),
                    out.stride(0), out.stride(1), BM=BM, BN=BN)
    return out


def reference(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    return x * scale + shift
