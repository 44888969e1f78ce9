# kdiag corpus kernel — expected: verdict=pass, category=none
# A histogram of integer class labels, counts[b] = #{i : x[i] == b}: each program loads a masked block
# of labels (through the input's stride) and adds 1 to counts[label] with tl.atomic_add, so programs
# (and lanes of one program) that hit the same bin never lose an update.  The output is allocated
# with torch.zeros, so the atomics start from 0; the masked tail lanes add nothing.  Counts are int32
# and the reference's torch.bincount is converted to int32: the comparison is exact.  The order of
# the atomic adds varies on a GPU, but integer addition is exact, so the result does not.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
BINS = 64
SIZES = [dict(n=8192), dict(n=3001)]


@triton.jit
def histogram(x_ptr, counts_ptr, n, sx, bins, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    label = tl.load(x_ptr + offs * sx, mask=m, other=0)
    ok = m & (label >= 0) & (label < bins)
    tl.atomic_add(counts_ptr + label, tl.full((BLOCK,), 1, dtype=tl.int32), mask=ok)


def make_inputs(device: str, seed: int = 0, n: int = 8192) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    # skewed labels: a few bins get most of the hits, so many lanes of one block share a bin
    x = (torch.rand(n, generator=g) ** 2 * BINS).to(torch.int32).clamp_(0, BINS - 1)
    return (x.to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    counts = torch.zeros(BINS, dtype=torch.int32, device=x.device)
    histogram[(triton.cdiv(n, BLOCK),)](x, counts, n, x.stride(0), BINS, BLOCK=BLOCK)
    return counts


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.bincount(x.long(), minlength=BINS).to(torch.int32)
