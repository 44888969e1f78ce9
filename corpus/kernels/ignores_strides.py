# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=noncontiguous-input
# A row-wise scale, out[r, c] = x[r, c] * w[c], that addresses x as if it were contiguous
# (x_ptr + row * n_cols + cols) instead of with its strides.  Every load and store is masked and
# make_inputs returns contiguous tensors, so every declared size (including non-multiples of BLOCK)
# passes; handed a transposed or sliced view of the same values (a probe outside the contract),
# it reads the wrong elements.  The kernel assumes contiguous inputs.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=256), dict(rows=30, cols=200)]


@triton.jit
def scale_rows(x_ptr, w_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=m)  # bug: ignores x.stride(0) and x.stride(1)
        w = tl.load(w_ptr + cols, mask=m)  # and w.stride(0)
        tl.store(out_ptr + row * n_cols + cols, x * w, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(rows, cols, generator=g).to(device), torch.randn(cols, generator=g).to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)  # contiguous: its own layout is right
    scale_rows[(rows,)](x, w, out, cols, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * w[None, :]
