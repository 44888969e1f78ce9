# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=shape-not-power-of-two
# A row logsumexp, out[r] = m + log(sum_c exp(x[r, c] - m)) with m the row maximum (stable), one
# program per row with the whole row in one block.  The wrapper passes BLOCK=cols straight through
# (no mask needed when the block is exactly the row), which is only legal when cols is a power of two:
# tl.arange needs a power-of-two range.  Every declared size is one (cols=256 and 1024), and there the
# kernel is right to a few ULP, including at scale=30 where a logsumexp without the max subtraction
# would overflow.  A size probe with another column count (e.g. cols=1000 or 300) fails before
# anything runs, under the interpreter as in the GPU compile: "arange's range must be a power of 2".
# Nothing is out of bounds at any size.  BLOCK = triton.next_power_of_2(cols) with a column mask
# (other=-inf) would widen the contract.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(rows=64, cols=256, scale=1.0), dict(rows=32, cols=1024, scale=30.0)]


@triton.jit
def row_logsumexp(x_ptr, out_ptr, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cc = tl.arange(0, BLOCK)  # BLOCK == cols: a power of two only by assumption
    x = tl.load(x_ptr + row * sxr + cc * sxc)
    m = tl.max(x, axis=0)
    tl.store(out_ptr + row, m + tl.log(tl.sum(tl.exp(x - m), axis=0)))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256, scale: float = 1.0) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * scale).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    row_logsumexp[(rows,)](x, out, x.stride(0), x.stride(1), BLOCK=cols)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(x, dim=1)
