# kdiag corpus kernel — expected: verdict=pass, category=none
# Per-row symmetric int8 quantisation, scale[r] = max(max|x[r, :]|, 1e-8) / 127 and
# q[r, c] = clamp(round(x[r, c] / scale[r]), -127, 127) with round-half-to-even, as torch.round rounds,
# returning (q int8, scale float32 (rows, 1)).  One program per row makes two passes over the row in
# chunks of 512 (the absolute maximum, then the quantised store), the tail masked.  Half of the declared
# rows lie on a grid of 1/128 with a maximum of exactly 127/64, so scale = 1/64 exactly and x / scale
# lands exactly on k + 0.5 for many elements: the tie-breaking is exercised, not only the ordinary
# rounding.  The rounding is written without relying on the hardware: r = floor(y), f = y - r (exact for
# |y| < 2^23), r + 1 where f > 0.5 or (f == 0.5 and r is odd).  Both divisions use tl.math.div_rn, the
# correctly rounded float32 division torch uses (a plain `/` may compile to an approximate division on
# a GPU, which moves values off the exact ties).  An all-zero row gets scale 1e-8/127 and q = 0.  int8
# is compared exactly: the quantised values equal the reference's everywhere, and the scales bit for bit.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 512
SIZES = [dict(rows=64, cols=1000), dict(rows=37, cols=4096)]


@triton.jit
def quant_rows(x_ptr, q_ptr, s_ptr, C, sxr, sxc, sqr, sqc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    amax = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < C, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    m = tl.maximum(tl.max(amax, axis=0), 1e-8)
    scale = tl.math.div_rn(m, 127.0)
    tl.store(s_ptr + row, scale)
    for c0 in range(0, C, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < C, other=0.0).to(tl.float32)
        y = tl.math.div_rn(x, scale)
        r = tl.floor(y)
        f = y - r
        odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
        r = tl.where((f > 0.5) | ((f == 0.5) & odd), r + 1.0, r)
        r = tl.minimum(tl.maximum(r, -127.0), 127.0)
        tl.store(q_ptr + row * sqr + c * sqc, r.to(tl.int8), mask=c < C)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 1000) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * torch.exp(torch.randn(rows, 1, generator=g))
    half = rows // 2
    grid = torch.randint(-254, 255, (half, cols), generator=g).to(torch.float32) / 128.0
    grid[:, 0] = 254.0 / 128.0  # max |x| = 127/64 exactly: scale = 1/64, x/scale = k/2
    x[:half] = grid
    x[-1] = 0.0  # an all-zero row
    return (x.to(device),)


def kernel(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows, cols = x.shape
    q = torch.empty((rows, cols), dtype=torch.int8, device=x.device)
    s = torch.empty((rows, 1), dtype=torch.float32, device=x.device)
    quant_rows[(rows,)](x, q, s, cols, x.stride(0), x.stride(1), q.stride(0), q.stride(1), BLOCK=BLOCK)
    return q, s


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    xf = x.to(torch.float32)
    scale = xf.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127.0
    q = torch.round(xf / scale).clamp(-127, 127).to(torch.int8)
    return q, scale
