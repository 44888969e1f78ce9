# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=missing-mask-tail
# A row product, out[r] = prod_c x[r, c] (the survival probability of a chain of per-step factors, or a
# geometric mean before its log), walking each row in chunks of 128 and multiplying the chunk products
# (tl.reduce with a multiply combine) into a float32 running product.  The column tail is masked, but
# the masked lanes load other=0.0, the identity of a sum, where a product needs 1.0: at cols=512 (four
# full chunks) no lane is masked and every row is right to a few ULP; at the declared cols=300 the last
# chunk has 84 padding lanes, their 0.0 enters the product and every row comes out exactly 0.0 where
# the reference is ~0.3..2.2 (all 48 rows wrong; the inputs are 1 + 0.02*noise, so no true product is
# near 0).  The masked lanes read nothing out of bounds; every row is written; nothing is NaN.  The same
# rows rounded up to cols=384 (three full chunks) passes: the padding lanes enter the reduction.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=48, cols=512), dict(rows=48, cols=300)]


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def row_prod(x_ptr, out_ptr, cols, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 1.0
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * sxr + cc * sxc, mask=cc < cols, other=0.0)  # bug: other=1.0 for a product
        acc = acc * tl.reduce(v, 0, _mul)
    tl.store(out_ptr + row, acc)


def make_inputs(device: str, seed: int = 0, rows: int = 48, cols: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((1.0 + 0.02 * torch.randn(rows, cols, generator=g)).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    row_prod[(rows,)](x, out, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.prod(x, dim=1)
