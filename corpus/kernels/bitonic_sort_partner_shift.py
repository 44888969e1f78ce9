# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# An ascending sort of each row (torch.sort(x, dim=1).values) by a bitonic network held in registers: one
# program per row loads the row into a power-of-two block (padding lanes +inf, so they sort to the end
# and are not stored), then for every merge size k = 2, 4, ..., BLOCK and every distance j = k/2, ..., 1
# each lane i compares with its partner and keeps the min or the max (tl.gather brings the partner's
# value).  The partner is written `i ^ (j >> 1)`, a line kept from a version whose loop variable was the
# span being merged (2j), where this loop's j already is the distance: every compare-exchange pairs
# lanes at half the right distance, the distance-1 step pairs each lane with itself (a no-op), and the
# distance k/2 of each merge is never used.  The network no longer sorts: every output row is a
# permutation of its input row (the same multiset of values) in the wrong order: 16251 of 16384 elements
# wrong at 64x256, 3241 of 3300 at 33x100, no tail, block or index pattern (the padding at cols=100 stays at the end and is
# not stored).  In bounds (partners stay inside the block), every element written; compiles for sm_90.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(rows=64, cols=256), dict(rows=33, cols=100)]


@triton.jit
def bitonic_rows(x_ptr, out_ptr, C, sxr, sxc, sor, soc, LOG_B: tl.constexpr):
    BLOCK: tl.constexpr = 1 << LOG_B
    row = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sxr + i * sxc, mask=i < C, other=float("inf")).to(tl.float32)
    for s in tl.static_range(1, LOG_B + 1):
        for t in tl.static_range(0, s):
            k = 1 << s
            j = 1 << (s - 1 - t)
            p = i ^ (j >> 1)  # bug: i ^ j
            y = tl.gather(x, p, 0)
            ascending = (i & k) == 0
            keep_min = (i < p) == ascending
            x = tl.where(keep_min, tl.minimum(x, y), tl.maximum(x, y))
    tl.store(out_ptr + row * sor + i * soc, x, mask=i < C)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(rows, cols, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    log_b = max(1, (cols - 1).bit_length())
    bitonic_rows[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), LOG_B=log_b)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.sort(x.to(torch.float32), dim=1).values
