# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=uninitialized-read
# A ReLU, out = max(x, 0), that "saves the zero stores": it stores x only where x > 0
# (mask = in_bounds & (x > 0)) and relies on the output already holding zeros elsewhere, but the
# output is allocated with torch.empty, not torch.zeros.  About half of the elements (every position
# where x <= 0: 2080 of 4096 at n=4096, 506 of 1000 at n=1000) are never written and return whatever
# the allocation held.  Where the allocator hands back fresh zeroed pages (a new CPU allocation often
# is) the result looks right by chance; with a filled allocation (a sentinel, a reused block on a GPU)
# those elements carry the garbage, scattered wherever x is negative (no tail, no block pattern).
# (The plain interpreter showed both: n=4096 right by chance, n=1000 with values up to 1e22.)  The
# positive elements are exact; nothing is out of bounds (the tail at n=1000 is masked).  On a GPU,
# compute-sanitizer initcheck does not see it (the kernel never reads out): only the consumer reads the
# uninitialized memory.  Storing tl.maximum(x, 0.0) under the bounds mask alone fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def relu_sparse_store(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    x = tl.load(x_ptr + offs, mask=inb, other=0.0)
    tl.store(out_ptr + offs, x, mask=inb & (x > 0.0))  # bug: the zeros are never written


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    out = torch.empty_like(x)  # bug: torch.zeros_like, or store the zeros
    relu_sparse_store[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x)
