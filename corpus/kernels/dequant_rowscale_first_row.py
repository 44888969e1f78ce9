# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# Per-token int8 dequantization, out[r, c] = q[r, c] * scale[r], of int8 activations with one float32
# scale per row (per token), as W8A8 pipelines store them.  Each program handles a tile of 16 rows x
# 64 columns and loads the scale ONCE, as a scalar, at the tile's first row (scale_ptr + pid_r * 16),
# then applies it to all 16 rows of the tile, as if the scale were per block of rows.  Rows r with
# r % 16 == 0 are exactly right; every other row is scaled by another row's factor (the scales vary by
# a factor of ~4 between tokens): 15 of every 16 rows wrong in whole rows (120 of 128 rows, 30598 of
# 32768 elements at 128x256; the few right ones are zeros of q), a pattern periodic in the row index
# with period 16 (the tile height); at 50x200 the last tile (rows 48..49) is partial (row tail
# masked): 46 of 50 rows, 9167 of 10000 elements wrong.  int8 values are widened before
# the multiply; q's and out's strides are honoured; nothing out of bounds, every element written.
# Loading scale[rows] as a (16,) vector and broadcasting it along the columns fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_R, BLOCK_C = 16, 64
SIZES = [dict(rows=128, cols=256), dict(rows=50, cols=200)]


@triton.jit
def dequant_rows(q_ptr, s_ptr, out_ptr, R, C, sqr, sqc, sor, soc, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    r = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = (r[:, None] < R) & (c[None, :] < C)
    q = tl.load(q_ptr + r[:, None] * sqr + c[None, :] * sqc, mask=m, other=0).to(tl.float32)
    s = tl.load(s_ptr + pid_r * BLOCK_R)  # one scale per tile: the first row's
    tl.store(out_ptr + r[:, None] * sor + c[None, :] * soc, q * s, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 128, cols: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    q = torch.randint(-127, 128, (rows, cols), generator=g).to(torch.int8)
    scale = (0.005 + 0.015 * torch.rand(rows, generator=g)).to(torch.float32)
    return q.to(device), scale.to(device)


def kernel(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    R, C = q.shape
    out = torch.empty((R, C), dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
    dequant_rows[grid](q, scale, out, R, C, q.stride(0), q.stride(1), out.stride(0), out.stride(1),
                       BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


def reference(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return q.to(torch.float32) * scale[:, None]
