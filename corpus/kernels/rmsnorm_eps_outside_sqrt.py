# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# RMSNorm, y = x / sqrt(mean(x^2) + eps) * w with eps = 1e-5 (a Llama-style rms_norm_eps), one program per
# row walking the row twice in chunks of 512 (the mean of squares in float32, then the scaled store), the
# tail masked.  The epsilon is added outside the square root: y = x / (sqrt(mean(x^2)) + eps) * w.  For a
# row of ordinary magnitude (rms ~ 1) the two differ by ~1e-5 relative, far inside the float32 tolerance;
# the difference grows as the row's rms approaches sqrt(eps) ~ 3e-3.  The declared hidden states vary in
# scale from row to row over four decades (rms ~1e-3 .. 10, log-uniform, as embeddings and residual
# streams of different tokens do), so the rows with a small rms come out too large, by up to ~2.7x for rms
# ~1e-3: whole rows wrong (those with rms below ~0.15: 37 of 64 rows at 64x1000, 25 of 40 at 40x4096;
# 35151 of 64000 and 97705 of 163840 elements), the other rows within a few ULP; finite, nothing out of bounds, every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

EPS = 1e-5
BLOCK = 512
SIZES = [dict(rows=64, cols=1000), dict(rows=40, cols=4096)]


@triton.jit
def rmsnorm(x_ptr, w_ptr, out_ptr, C, sxr, sxc, sor, soc, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < C, other=0.0).to(tl.float32)
        acc += x * x
    rms = tl.sqrt(tl.sum(acc, axis=0) / C)
    inv = 1.0 / (rms + eps)  # bug: 1.0 / tl.sqrt(mean(x^2) + eps)
    for c0 in range(0, C, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < C, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=c < C, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * sor + c * soc, x * inv * w, mask=c < C)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 1000) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    scale = 10.0 ** (torch.rand(rows, 1, generator=g) * 4.0 - 3.0)  # 1e-3 .. 10
    x = torch.randn(rows, cols, generator=g) * scale
    w = 1.0 + 0.1 * torch.randn(cols, generator=g)
    return x.to(device), w.to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=torch.float32, device=x.device)
    rmsnorm[(rows,)](x, w, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), EPS, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    xf = x.to(torch.float32)
    return xf * torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + EPS) * w.to(torch.float32)
