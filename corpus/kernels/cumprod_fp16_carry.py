# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# Row-wise cumulative product, out = torch.cumprod(x, dim=1) for float32 x (a survival curve, a
# product of per-step discount or retention factors near 1).  One program per row walks it in chunks of
# 64: tl.cumprod of the chunk in float32 (tail lanes load 1.0), times the running product of all earlier
# chunks.  That running product, the carry, is kept in a float16 scalar (declared tl.float16 "to save
# registers", as in the half-precision version of the kernel) and rounded to float16 after every chunk,
# so it keeps ~11 bits: each chunk boundary adds a relative error of up to 2^-11 (~4.9e-4), and the
# errors accumulate along the row.  The first chunk of every row is exact (carry 1.0); later columns
# drift: at the declared cols=2048 (32 chunks) 31042 of 32768 elements are outside float32's
# tolerance (median rel error 5e-4, max 3.6e-3, growing with the column index; the first bad element
# is column 64, the first chunk of every row within 1 ULP), at cols=1000 (16 chunks) 14485 of 16000
# (median 3e-4, max 1.8e-3).  The values stay well inside float16's range (products of
# 1 + 0.02 * randn, ~0.08..3.8), nothing is NaN/Inf, the
# tail is masked, nothing out of bounds.  A float32 carry matches to a few ULP.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 64
SIZES = [dict(rows=16, cols=2048), dict(rows=16, cols=1000)]


@triton.jit
def cumprod_rows(x_ptr, out_ptr, cols, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    carry = tl.full((), 1.0, dtype=tl.float16)
    for c0 in range(0, cols, BLOCK):
        c = c0 + offs
        cm = c < cols
        x = tl.load(x_ptr + r * sxr + c * sxc, mask=cm, other=1.0).to(tl.float32)
        cp = tl.cumprod(x, axis=0) * carry.to(tl.float32)
        tl.store(out_ptr + r * sor + c * soc, cp, mask=cm)
        carry = tl.sum(tl.where(offs == BLOCK - 1, cp, 0.0), axis=0).to(tl.float16)


def make_inputs(device: str, seed: int = 0, rows: int = 16, cols: int = 2048) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((1.0 + 0.02 * torch.randn(rows, cols, generator=g)).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    cumprod_rows[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumprod(x.float(), dim=1)
