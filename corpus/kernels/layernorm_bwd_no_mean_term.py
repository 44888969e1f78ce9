# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# The input gradient of LayerNorm, y = (x - mean) * rstd * w + b, for an upstream gradient dy:
#   dx = rstd * (w*dy - mean(w*dy) - xhat * mean(w*dy * xhat)),  xhat = (x - mean) * rstd,
# as autograd computes it for F.layer_norm.  One program per row holds the row in one masked block
# (next power of two of cols; the padding lanes are zeroed before every sum and the means divide by
# the true cols), recomputes mean and rstd in float32, and forms dx.  The second term, mean(w*dy)
# (the gradient through the mean), is left out: dx = rstd * (w*dy - xhat * c1).  Every row's dx is off
# by the same amount in every element, -rstd[r] * mean_c(w*dy)[r], which is not zero for the declared
# upstream gradients (random, as a real loss gives): 36815 of 36864 elements outside tolerance at
# 48x768 and 29000 of 30000 at 30x1000 (one row whose mean(w*dy) is near zero passes), errors constant
# along each row, max abs ~0.05 on gradients up to ~4 (mean |dx| ~0.4).  Finite, masked tails,
# nothing out of bounds, every element written.  (A test that only checks sum(dx) == 0 per row would
# catch it; one with dy constant along rows would hide it only if w is constant too.)
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

EPS = 1e-5
SIZES = [dict(rows=48, cols=768), dict(rows=30, cols=1000)]


@triton.jit
def ln_bwd_dx(x_ptr, w_ptr, dy_ptr, dx_ptr, C, sxr, sxc, sdr, sdc, sor, soc, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < C
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * sdr + c * sdc, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / C
    xc = tl.where(m, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / C + eps)
    xhat = xc * rstd
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / C
    dx = (wdy - xhat * c1) * rstd  # bug: (wdy - (xhat * c1 + c2)) * rstd with c2 = sum(wdy) / C
    tl.store(dx_ptr + row * sor + c * soc, dx, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 48, cols: int = 768) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g) * 2.0 + 0.5
    w = 1.0 + 0.5 * torch.randn(cols, generator=g)
    dy = torch.randn(rows, cols, generator=g)
    return x.to(device), w.to(device), dy.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    dx = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    ln_bwd_dx[(rows,)](x, w, dy, dx, cols, x.stride(0), x.stride(1), dy.stride(0), dy.stride(1),
                       dx.stride(0), dx.stride(1), EPS, BLOCK=triton.next_power_of_2(cols))
    return dx


def reference(x: torch.Tensor, w: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    with torch.enable_grad():
        xr = x.detach().to(torch.float32).requires_grad_(True)
        y = F.layer_norm(xr, (x.shape[1],), w.detach().to(torch.float32), None, EPS)
        (gx,) = torch.autograd.grad(y, xr, dy.to(torch.float32))
    return gx
