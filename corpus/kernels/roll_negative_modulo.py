# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# A circular shift along the last axis, out[r, i] = x[r, (i - shift) mod n], as torch.roll(x, shift,
# dims=1) computes it (a cyclic time shift of each row of a signal batch).  The source index is
# written `(offs - shift) % n`, with Python's modulo in mind; Triton's `%` on signed integers is C's
# remainder (it takes the sign of the dividend, as the GPU's rem instruction does, and the
# interpreter follows it), so for the first `shift` columns of every row (offs < shift) the index is
# offs - shift, negative: those lanes read x[r, -shift .. -1], i.e. the tail of the PREVIOUS row where
# torch.roll takes the tail of the same row, and for row 0 up to `shift` elements BEFORE the start of
# x.  At the declared sizes (shift=5 over 48x1000, shift=37 over 16x300; the shift is a one-element
# int64 tensor) the first `shift` columns of every row are wrong (240 of 48000, 592 of 4800
# elements): row 0's from memory before x (an out-of-bounds read at offsets -shift..-1 of x), each
# later row's head equal to the previous row's tail; every other element is right.  The stores are
# masked and in bounds.  The plain interpreter reads whatever precedes x there (values up to ~4e33 at
# 16x300).  ((offs - shift) % n + n) % n fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=48, n=1000, shift=5), dict(rows=16, n=300, shift=37)]


@triton.jit
def roll_rows(x_ptr, out_ptr, n, shift, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    src = (offs - shift) % n  # C remainder: negative for offs < shift
    v = tl.load(x_ptr + row * sxr + src * sxc, mask=m, other=0.0)
    tl.store(out_ptr + row * sor + offs * soc, v, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 48, n: int = 1000, shift: int = 5) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, n, generator=g)
    return x.to(device), torch.tensor([shift], dtype=torch.int64, device=device)


def kernel(x: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    rows, n = x.shape
    out = torch.empty((rows, n), dtype=x.dtype, device=x.device)
    grid = (rows, triton.cdiv(n, BLOCK))
    roll_rows[grid](x, out, n, int(shift.item()), x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    return torch.roll(x, int(shift.item()), dims=1)
