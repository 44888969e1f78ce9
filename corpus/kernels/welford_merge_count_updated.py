# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Per-row population variance and mean, torch.var_mean(x, dim=1, unbiased=False), with a chunked Welford
# / Chan merge: one program per row takes the count, mean and M2 (sum of squared deviations) of each chunk
# of 256 columns (tail masked, the tail's count its true count), starts from the first chunk's
# statistics and merges every later chunk b into the running (n_a, mean_a, M2_a) with
#   delta = mean_b - mean_a,  n = n_a + n_b,  mean += delta * n_b / n,  M2 += M2_b + delta^2 * n_a * n_b / n.
# The merge updates the running count before the M2 line uses it (n_a is already n_a + n_b there), so the
# correction term becomes delta^2 * n_b instead of delta^2 * n_a * n_b / (n_a + n_b): the variance is
# overestimated whenever the chunk means differ.  The declared rows carry a drift along the columns (a
# per-row linear trend, as sensor or sequence data do), so the chunk means differ by ~0.1..1: every row's
# variance too large (48 of 48 rows by 10..31% at cols=1000, 32 of 32 by 5..15% at cols=2048), the means
# right (within a few ULP).  A row that fits one chunk (cols <= 256) would pass; nothing out of bounds,
# every element written, finite.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=48, cols=1000), dict(rows=32, cols=2048)]


@triton.jit
def row_var_mean(x_ptr, var_ptr, mean_ptr, C, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    msk = c < C
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=msk, other=0.0).to(tl.float32)
    n = tl.sum(msk.to(tl.float32), axis=0)
    mean = tl.sum(x, axis=0) / n
    d = tl.where(msk, x - mean, 0.0)
    m2 = tl.sum(d * d, axis=0)
    for c0 in range(BLOCK, C, BLOCK):
        cc = c0 + c
        mb_mask = cc < C
        xb = tl.load(x_ptr + row * sxr + cc * sxc, mask=mb_mask, other=0.0).to(tl.float32)
        nb = tl.sum(mb_mask.to(tl.float32), axis=0)
        mean_b = tl.sum(xb, axis=0) / nb
        db = tl.where(mb_mask, xb - mean_b, 0.0)
        m2_b = tl.sum(db * db, axis=0)
        delta = mean_b - mean
        n_tot = n + nb
        mean = mean + delta * (nb / n_tot)
        n = n_tot  # bug: updated before the M2 line, which needs the old count
        m2 = m2 + m2_b + delta * delta * (n * nb / n_tot)
    tl.store(var_ptr + row, m2 / n)
    tl.store(mean_ptr + row, mean)


def make_inputs(device: str, seed: int = 0, rows: int = 48, cols: int = 1000) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    noise = torch.randn(rows, cols, generator=g)
    amp = (2.0 + 4.0 * torch.rand(rows, 1, generator=g)) * torch.sign(torch.randn(rows, 1, generator=g))
    trend = amp * torch.linspace(0.0, 1.0, cols)[None, :]
    offset = torch.randn(rows, 1, generator=g) * 3.0
    return ((noise + trend + offset).to(device),)


def kernel(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows, cols = x.shape
    var = torch.empty(rows, dtype=torch.float32, device=x.device)
    mean = torch.empty(rows, dtype=torch.float32, device=x.device)
    row_var_mean[(rows,)](x, var, mean, cols, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return var, mean


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.var_mean(x.to(torch.float32), dim=1, unbiased=False)
