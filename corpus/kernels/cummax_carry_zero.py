# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# A row-wise running maximum, out[r, c] = max_{j <= c} x[r, j] (torch.cummax(x, 1).values, as a
# drawdown or running-peak computation uses it), over rows longer than one block: each program walks
# its row in chunks of 128, scans each chunk with tl.associative_scan(maximum) and combines it with
# the carry, the maximum of all earlier chunks.  The masked tail lanes load -inf (right), but the
# carry is initialised to 0.0 where the identity of max is -inf: every prefix whose true maximum is
# still negative comes out as exactly 0.0.  The declared values are centred at -2 (log-probabilities,
# losses below a baseline), so every row starts with a run of negative prefixes: those heads are 0.0
# where the reference is negative (10519 of 32768 elements, 63 of 64 rows at 64x512; 4336 of 10000,
# 39 of 40 rows at 40x250),
# the first bad index is 0 (x[0, 0] < 0), and once a row meets a positive value it is right for the
# rest of the row.  Finite, no out-of-bounds access, every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=512), dict(rows=40, cols=250)]


@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.jit
def row_cummax(x_ptr, out_ptr, cols, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = 0.0  # the identity of max is -inf
    for c0 in range(0, cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        m = c < cols
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=float("-inf")).to(tl.float32)
        run = tl.maximum(tl.associative_scan(x, 0, _max), carry)
        tl.store(out_ptr + row * sor + c * soc, run.to(out_ptr.dtype.element_ty), mask=m)
        carry = tl.maximum(carry, tl.max(x, axis=0))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * 0.8 - 2.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    row_cummax[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cummax(x, dim=1).values
