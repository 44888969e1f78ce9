# kdiag corpus kernel — expected: verdict=pass, category=none
# Row-wise L2 normalisation, out[r] = x[r] / max(||x[r]||_2, eps), as F.normalize(x, dim=1) computes
# it (eps=1e-12), for rows wider than one block: each program walks its row twice in chunks of 256
# (a float32 sum of squares, then the scaled store), the column tail masked with other=0.0 (adds
# nothing to the sum of squares).  The declared inputs have rows of very different scales (1e-3 to
# 1e3) and one all-zero row, where the norm is 0 and the clamp to eps gives 0/eps = 0, as the
# reference does (no NaN).  Both strides of x are honoured.  The only difference from torch is the
# order of the additions in the norm: a couple of ULP, inside the default float32 tolerance.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 256
EPS = 1e-12
SIZES = [dict(rows=64, cols=1000), dict(rows=32, cols=256)]


@triton.jit
def l2_normalize_rows(x_ptr, out_ptr, cols, sxr, sxc, sor, soc, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * sxr + cc * sxc, mask=cc < cols, other=0.0).to(tl.float32)
        acc += v * v
    inv = 1.0 / tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), eps)
    for c0 in range(0, cols, BLOCK):
        cc = c0 + tl.arange(0, BLOCK)
        m = cc < cols
        v = tl.load(x_ptr + row * sxr + cc * sxc, mask=m, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * sor + cc * soc, (v * inv).to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 1000) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    scale = 10.0 ** (torch.rand(rows, 1, generator=g) * 6.0 - 3.0)
    x = torch.randn(rows, cols, generator=g) * scale
    x[rows // 2] = 0.0  # an all-zero row: the norm is clamped to eps
    return (x.to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    l2_normalize_rows[(rows,)](x, out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1), EPS,
                               BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    # in float32 (eps=1e-12 would round to 0 in float16, and the zero row would be 0/0 there)
    return F.normalize(x.float(), dim=1, eps=EPS).to(x.dtype)
