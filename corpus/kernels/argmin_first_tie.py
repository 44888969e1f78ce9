# kdiag corpus kernel — expected: verdict=pass, category=none
# A row argmin returning int64 indices, as torch.argmin does, over quantized costs (integers 0..31
# stored as float32, as bucketed distances or quantized scores give): the minimum appears several
# times in most rows, so the tie-break decides the answer.  Each program walks its row in chunks of
# 64; inside a chunk tl.argmin returns the leftmost position of the chunk's minimum (ties broken to
# the left), and the chunks are merged with a strict `<`, so a later chunk that only equals the best
# so far does not replace it: the result is the first position of the minimum in the row, as
# torch.argmin returns it.  The tail lanes of the last chunk load +inf (never a minimum, never a tie),
# the row stride and the column stride are both honoured.  Indices are compared exactly: every row
# matches at cols=300 (a masked tail of 44 lanes) and cols=256.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 64
SIZES = [dict(rows=64, cols=300), dict(rows=33, cols=256)]


@triton.jit
def row_argmin(x_ptr, out_ptr, cols, sr, sc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best_val = float("inf")
    best_idx = 0
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * sr + offs * sc, mask=offs < cols, other=float("inf"))
        cmin, cidx = tl.min(v, axis=0, return_indices=True, return_indices_tie_break_left=True)
        take = cmin < best_val  # strict: an equal minimum in a later chunk keeps the earlier index
        best_idx = tl.where(take, start + cidx, best_idx)
        best_val = tl.where(take, cmin, best_val)
    tl.store(out_ptr + row, best_idx.to(tl.int64))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 300) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randint(0, 32, (rows, cols), generator=g).to(torch.float32).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.int64, device=x.device)
    row_argmin[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmin(x, dim=1)
