# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-launch-grid
# RMSNorm, out = x / sqrt(mean(x^2) + eps) * w, with each program normalising a block of 8 rows (a
# 2-D tile of 8 rows by the padded row length).  The launch grid is rows // ROWS_PER_PROG (floor
# division) instead of triton.cdiv: at rows=64 the 8 programs cover every row, at the declared
# rows=100 only 12 programs run and rows 96..99 are never written; they keep whatever torch.empty
# left there (the sentinel a harness fills it with).  Every load and store is masked, so nothing
# is out of bounds; the computed rows are right.
from __future__ import annotations

import torch
import triton
import triton.language as tl

ROWS_PER_PROG = 8
SIZES = [dict(rows=64, cols=512), dict(rows=100, cols=384)]


@triton.jit
def rmsnorm(x_ptr, w_ptr, out_ptr, rows, cols, stride_r, out_stride_r, eps,
            ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, BLOCK)
    m = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * stride_r + c[None, :], mask=m, other=0.0)
    w = tl.load(w_ptr + c, mask=c < cols, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / cols + eps)
    tl.store(out_ptr + r[:, None] * out_stride_r + c[None, :], x * rstd[:, None] * w[None, :], mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(rows, cols, generator=g).to(device), (1 + 0.1 * torch.randn(cols, generator=g)).to(device)


def kernel(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    rows, cols = x.shape
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    grid = (rows // ROWS_PER_PROG,)  # bug: triton.cdiv(rows, ROWS_PER_PROG)
    rmsnorm[grid](x, w.contiguous(), out, rows, cols, x.stride(0), out.stride(0), 1e-6,
                  ROWS=ROWS_PER_PROG, BLOCK=triton.next_power_of_2(cols))
    return out


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6) * w
