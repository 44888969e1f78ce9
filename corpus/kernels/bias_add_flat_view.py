# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=noncontiguous-input
# A per-channel bias add over an (rows, cols) activation, out[r, c] = x[r, c] + bias[c], written as a
# flat 1-D kernel: the wrapper flattens x with x.view(-1) and the kernel finds each element's channel
# as offs % cols.  That is right for every contiguous input, and every declared input is contiguous
# (masked tail at 19*300 = 5700 elements too), so the declared sizes pass exactly.  Handed a
# non-contiguous view (a transposed or a row-padded x, a probe outside the contract), x.view(-1)
# raises before any kernel is launched: "RuntimeError: view size is not compatible with input
# tensor's size and stride ... Use .reshape(...) instead."  The kernel assumes contiguous inputs;
# x.reshape(-1) (a copy where needed) or passing both strides would widen the contract.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 1024
SIZES = [dict(rows=64, cols=256), dict(rows=19, cols=300)]


@triton.jit
def bias_add(x_ptr, b_ptr, out_ptr, total, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    x = tl.load(x_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs % cols, mask=m)
    tl.store(out_ptr + offs, x + b, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(rows, cols, generator=g).to(device), torch.randn(cols, generator=g).to(device)


def kernel(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    x_flat = x.view(-1)  # only a contiguous x can be viewed flat
    out = torch.empty(rows * cols, dtype=x.dtype, device=x.device)
    bias_add[(triton.cdiv(rows * cols, BLOCK),)](x_flat, bias.contiguous(), out, rows * cols, cols, BLOCK=BLOCK)
    return out.view(rows, cols)


def reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return x + bias[None, :]
