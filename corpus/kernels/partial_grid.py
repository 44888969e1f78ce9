# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-launch-grid
# A 2-D tiled ReLU over an (M, N) matrix whose launch grid is computed with floor division for the
# column tiles (N // BLOCK_N instead of triton.cdiv(N, BLOCK_N)).  With N=200 and BLOCK_N=64 only 3
# column tiles run: columns 192..199 of every row are never written and still hold the sentinel
# kdiag fills torch.empty with.  Every load and store is masked, so nothing is out of bounds; the
# declared size N=256 (a multiple of 64) hides the bug, N=200 shows it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N = 16, 64
SIZES = [dict(m=64, n=256), dict(m=64, n=200)]


@triton.jit
def relu2d(x_ptr, out_ptr, M, N, stride_row, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride_row + cols[None, :]
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=m)


def make_inputs(device: str, seed: int = 0, m: int = 64, n: int = 256) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(m, n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(m, BLOCK_M), n // BLOCK_N)  # bug: drops the last, partial column tile
    relu2d[grid](x, out, m, n, x.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x)
