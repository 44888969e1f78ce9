# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=inputs-mutated
# A first difference, out[i] = x[i] - x[i-1] (out[0] = x[0]), written in place into x to save an
# allocation (the reference returns a new tensor and leaves x alone).  Each program loads its block
# and the element before it, then stores its block; but the element before block p is the last
# element of block p-1, which program p-1 overwrites.  Whether program p reads the old or the new
# value depends on the order the programs run: on a GPU the result at every block start varies
# between runs; the interpreter runs the programs in order, so out[p*BLOCK] (p >= 1) always reads
# the already-differenced value and is wrong, every BLOCK=128 elements, while all other elements are
# right.  The input is modified by the call.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(n=4096), dict(n=1000)]


@triton.jit
def diff(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cur = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    prev = tl.load(x_ptr + offs - 1, mask=(offs >= 1) & (offs < n), other=0.0)
    tl.store(out_ptr + offs, cur - prev, mask=offs < n)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).cumsum(0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    out = x  # bug: in place, while other programs still read x
    diff[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.diff(x, prepend=x.new_zeros(1))
