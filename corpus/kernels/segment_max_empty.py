# kdiag corpus kernel — expected: verdict=pass, category=none
# A segmented max over CSR offsets, out[r, :] = max_{j in [ptr[r], ptr[r+1])} vals[j, :], as the "max"
# aggregation of a graph network or an embedding bag computes it, where an empty segment gives -inf
# (the identity of max, what the reference returns for it too).  One program per (segment, block of
# 32 features) reads its two int64 offsets, walks the segment's entries in chunks of 16 with the
# entry tail masked (j < end, other=-inf, so a padding lane never wins) and keeps a running maximum
# that starts at -inf; an empty segment runs no iteration and stores -inf.  The values are mostly
# negative (shifted normals), so a running maximum started at 0.0 or padding lanes loaded as 0.0
# would show at once; here the result is bit-exact (a max does not round), including the -inf rows
# (12 of 48 and 7 of 30 segments are empty), which compare equal to the reference's -inf.  The
# feature tail (d=100) is masked and vals is addressed through both strides.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_J, BLOCK_D = 16, 32
SIZES = [dict(segs=48, d=64), dict(segs=30, d=100)]


@triton.jit
def segment_max(ptr_ptr, vals_ptr, out_ptr, d, svj, svd, sor, sod,
                BLOCK_J: tl.constexpr, BLOCK_D: tl.constexpr):
    seg = tl.program_id(0)
    dd = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    dmask = dd < d
    start = tl.load(ptr_ptr + seg)
    end = tl.load(ptr_ptr + seg + 1)
    acc = tl.full((BLOCK_D,), float("-inf"), dtype=tl.float32)
    for j0 in range(start, end, BLOCK_J):
        jj = j0 + tl.arange(0, BLOCK_J)
        m = (jj[:, None] < end) & dmask[None, :]
        v = tl.load(vals_ptr + jj[:, None] * svj + dd[None, :] * svd, mask=m, other=float("-inf"))
        acc = tl.maximum(acc, tl.max(v, axis=0))
    tl.store(out_ptr + seg * sor + dd * sod, acc, mask=dmask)


def make_inputs(device: str, seed: int = 0, segs: int = 48, d: int = 64) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    lengths = torch.randint(0, 40, (segs,), generator=g)
    lengths[torch.randperm(segs, generator=g)[: max(1, segs // 5)]] = 0  # empty segments
    ptr = torch.zeros(segs + 1, dtype=torch.int64)
    ptr[1:] = torch.cumsum(lengths, 0)
    nnz = int(ptr[-1])
    vals = torch.randn(nnz, d, generator=g) - 3.0  # mostly negative
    return ptr.to(device), vals.to(device)


def kernel(ptr: torch.Tensor, vals: torch.Tensor) -> torch.Tensor:
    segs, d = ptr.numel() - 1, vals.shape[1]
    out = torch.empty((segs, d), dtype=torch.float32, device=vals.device)
    grid = (segs, triton.cdiv(d, BLOCK_D))
    segment_max[grid](ptr, vals, out, d, vals.stride(0), vals.stride(1), out.stride(0), out.stride(1),
                      BLOCK_J=BLOCK_J, BLOCK_D=BLOCK_D)
    return out


def reference(ptr: torch.Tensor, vals: torch.Tensor) -> torch.Tensor:
    segs, d = ptr.numel() - 1, vals.shape[1]
    out = torch.full((segs, d), float("-inf"), dtype=torch.float32, device=vals.device)
    for s in range(segs):
        a, b = int(ptr[s]), int(ptr[s + 1])
        if b > a:
            out[s] = vals[a:b].amax(dim=0)
    return out
