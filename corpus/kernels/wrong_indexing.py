# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# Adds a per-column bias to a matrix, out[r, c] = x[r, c] + bias[c], but indexes the bias with the
# row (bias[r]).  The shapes in SIZES are square, so every access stays inside its tensor (no
# out-of-bounds lane for the hooks to find) and the kernel runs to the end: the output is simply
# wrong almost everywhere (every element off the diagonal pattern), which the comparison with the
# reference shows.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 64
SIZES = [dict(n=64), dict(n=200)]


@triton.jit
def add_bias(x_ptr, bias_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        x = tl.load(x_ptr + row * stride_row + cols, mask=m)
        b = tl.load(bias_ptr + row)  # bug: should be bias_ptr + cols (masked)
        tl.store(out_ptr + row * stride_row + cols, x + b, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(n, n, generator=g).to(device), torch.randn(n, generator=g).to(device)


def kernel(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    rows, cols = x.shape
    add_bias[(rows,)](x, bias, out, cols, x.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return x + bias[None, :]
