# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A row argmax returning int64 indices, as torch.argmax does, walking each row in BLOCK=64 chunks.
# Inside a chunk tl.argmax breaks ties to the left, but the chunks are merged with `>=`: a later
# chunk whose maximum only equals the best so far replaces it, so the kernel returns the first
# position of the maximum in the LAST chunk that holds it, where torch.argmax returns the first
# position in the row.  With continuous random inputs there are no ties and it would pass; the
# declared inputs are quantized scores (integers 0..15, as class scores or quantized logits give),
# so the maximum appears in several chunks of almost every row and those rows get a later index.
# The maxima themselves are right (x[row, out[row]] equals the row maximum); indices are compared
# exactly; nothing is out of bounds (masked lanes load -inf) and every row is written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 64
SIZES = [dict(rows=64, cols=512), dict(rows=33, cols=300)]


@triton.jit
def row_argmax(x_ptr, out_ptr, cols, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = -float("inf")
    best_idx = tl.zeros((), dtype=tl.int64)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + offs * sxc, mask=offs < cols, other=-float("inf"))
        bmax, barg = tl.max(x, axis=0, return_indices=True)
        take = bmax >= best  # bug: `>` keeps the first occurrence on ties
        best_idx = tl.where(take, (start + barg).to(tl.int64), best_idx)
        best = tl.where(take, bmax, best)
    tl.store(out_ptr + row, best_idx)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randint(0, 16, (rows, cols), generator=g).to(torch.float32).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.int64, device=x.device)
    row_argmax[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=1)
