# kdiag corpus kernel — expected: verdict=pass, category=none
# An embedding bag in "sum" mode, out[b, :] = sum_{j in [offsets[b], offsets[b+1])} weight[indices[j], :],
# as F.embedding_bag(indices, weight, offsets, mode="sum") computes it (include_last_offset=False: the
# last bag runs to the end of indices).  Bags have 0 to 12 entries; empty bags (several per batch) give
# rows of zeros, as torch returns them.  One program per (bag, block of 64 features) reads its start
# offset and its end (the next offset, or len(indices) for the last bag, through a masked scalar load),
# walks the bag's entries in chunks of 8 (entry tail masked with j < end), gathers the table rows with
# the int64 index times the table's row stride, and sums in float32.  The feature tail (dim=100) is
# masked, the table's and the output's strides are honoured; every index is inside the table.  Against
# torch the only difference is the order of the additions: a few ULP of float32.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_J, BLOCK_D = 8, 64
SIZES = [dict(bags=32, vocab=500, dim=64), dict(bags=17, vocab=300, dim=100)]


@triton.jit
def bag_sum(ind_ptr, off_ptr, w_ptr, out_ptr, n_bags, n_ind, D, swr, swc, sor, soc,
            BLOCK_J: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    dmask = d < D
    start = tl.load(off_ptr + b)
    end = tl.load(off_ptr + b + 1, mask=b + 1 < n_bags, other=n_ind)
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for j0 in range(start, end, BLOCK_J):
        j = j0 + tl.arange(0, BLOCK_J)
        jmask = j < end
        idx = tl.load(ind_ptr + j, mask=jmask, other=0)
        rows = tl.load(w_ptr + idx[:, None] * swr + d[None, :] * swc,
                       mask=jmask[:, None] & dmask[None, :], other=0.0)
        acc += tl.sum(rows.to(tl.float32), axis=0)
    tl.store(out_ptr + b * sor + d * soc, acc.to(out_ptr.dtype.element_ty), mask=dmask)


def make_inputs(device: str, seed: int = 0, bags: int = 32, vocab: int = 500, dim: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    counts = torch.randint(0, 13, (bags,), generator=g)
    counts[::5] = 0  # empty bags
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), counts.cumsum(0)[:-1]])
    indices = torch.randint(0, vocab, (int(counts.sum()),), generator=g)
    weight = torch.randn(vocab, dim, generator=g)
    return indices.to(device), offsets.to(device), weight.to(device)


def kernel(indices: torch.Tensor, offsets: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    bags, dim = offsets.numel(), weight.shape[1]
    out = torch.empty((bags, dim), dtype=weight.dtype, device=weight.device)
    grid = (bags, triton.cdiv(dim, BLOCK_D))
    bag_sum[grid](indices, offsets, weight, out, bags, indices.numel(), dim, weight.stride(0), weight.stride(1),
                  out.stride(0), out.stride(1), BLOCK_J=BLOCK_J, BLOCK_D=BLOCK_D)
    return out


def reference(indices: torch.Tensor, offsets: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return F.embedding_bag(indices, weight.to(torch.float32), offsets, mode="sum").to(weight.dtype)
