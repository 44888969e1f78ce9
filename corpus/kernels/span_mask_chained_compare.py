# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=compile-source-error
# Keeps each row's valid span and zeroes the rest, out[r, c] = x[r, c] if start[r] <= c < end[r] else 0
# (as span extraction, or a packed sequence's per-segment masking, does it).  The test is written as a
# Python chained comparison, `inside = start <= cols < end`.  Triton's compiler does not accept
# chained comparisons: compiling the kernel for any GPU target fails at that line with
# UnsupportedLanguageConstruct "simultaneous multiple comparison is not supported", so the kernel never
# runs on a GPU.  Under the interpreter the function body is executed as plain Python: the chain
# becomes `(start <= cols) and (cols < end)`, the truth value of a block tensor is taken as True, and
# `and` returns its right operand, so the lower bound is silently dropped: every element before
# start[r] is kept where the reference has 0.0 (5149 of 16384 at 64x256, 62 of 64 rows; 1660 of 6000
# at 20x300, 19 of 20 rows; rows with start = 0 right), all in each row's head before its span.  Nothing is out of bounds, every element is written.
# (start <= cols) & (cols < end) fixes both.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=256), dict(rows=20, cols=300)]


@triton.jit
def keep_span(x_ptr, start_ptr, end_ptr, out_ptr, cols, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < cols
    start = tl.load(start_ptr + row)
    end = tl.load(end_ptr + row)
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=0.0)
    inside = start <= c < end
    tl.store(out_ptr + row * sor + c * soc, tl.where(inside, x, 0.0), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g)
    a = torch.randint(0, cols, (rows,), generator=g)
    b = torch.randint(0, cols, (rows,), generator=g)
    start, end = torch.minimum(a, b), torch.maximum(a, b) + 1
    start[0] = 0
    return x.to(device), start.to(device), end.to(device)


def kernel(x: torch.Tensor, start: torch.Tensor, end: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    keep_span[(rows, triton.cdiv(cols, BLOCK))](x, start, end, out, cols, x.stride(0), x.stride(1),
                                                out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, start: torch.Tensor, end: torch.Tensor) -> torch.Tensor:
    c = torch.arange(x.shape[1], device=x.device)[None, :]
    inside = (c >= start[:, None]) & (c < end[:, None])
    return torch.where(inside, x, torch.zeros_like(x))
