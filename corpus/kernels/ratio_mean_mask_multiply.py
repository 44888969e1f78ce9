# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# A per-row mean of ratios, out[r] = mean_c num[r, c] / den[r, c] (a mean relative error, a mean
# importance weight), each row walked in chunks of 128.  Both loads are masked with other=0.0, and the
# padding lanes are then removed by multiplying with the mask as a float (`q * m.to(tl.float32)`)
# instead of selecting with tl.where: in a padding lane q = 0.0 / 0.0 = NaN, and NaN * 0.0 is NaN, so
# the NaN reaches the row total.  (With tl.where(m, num / den, 0.0) the NaN lanes are never selected
# and the sum stays finite: the select does not propagate them.)  At cols=256 (two full chunks) no lane
# is masked and every row matches to a few ULP; at the declared cols=200 every row is NaN (64 of 64)
# where the reference is finite (den is kept away from 0).  The NaN is computed from in-bounds masked
# lanes, not read from memory: no access is out of bounds, every row is written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=256), dict(rows=64, cols=200)]


@triton.jit
def ratio_mean(num_ptr, den_ptr, out_ptr, cols, snr, snc, sdr, sdc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        m = cc < cols
        a = tl.load(num_ptr + row * snr + cc * snc, mask=m, other=0.0)
        b = tl.load(den_ptr + row * sdr + cc * sdc, mask=m, other=0.0)
        acc += (a / b) * m.to(tl.float32)  # bug: 0/0 = NaN in padding lanes, NaN * 0 = NaN
    tl.store(out_ptr + row, tl.sum(acc, axis=0) / cols)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple:
    g = torch.Generator(device="cpu").manual_seed(seed)
    num = torch.randn(rows, cols, generator=g)
    den = 0.5 + torch.rand(rows, cols, generator=g)
    return num.to(device), den.to(device)


def kernel(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    rows, cols = num.shape
    out = torch.empty(rows, dtype=torch.float32, device=num.device)
    ratio_mean[(rows,)](num, den, out, cols, num.stride(0), num.stride(1), den.stride(0), den.stride(1),
                        BLOCK=BLOCK)
    return out


def reference(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    return (num / den).mean(dim=1)
