# kdiag corpus kernel — expected: verdict=pass, category=none
# A masked mean over a ragged last dimension, out[r] = mean(x[r, :lengths[r]]), as a pooled score over
# variable-length rows padded to a common width (the padding holds arbitrary values, here large
# ones, and must not count).  The lengths are an int64 tensor with every value in [1, cols] (rows of
# length 1 and full-width rows included).  One program per row reads its length and walks only
# that many columns in chunks of 128: the loop bound is the row's own length, the chunk tail is masked
# with c < length and other=0.0 (neutral for a sum), and the divisor is the length, not the padded
# width.  Both strides of x are honoured, the sum is kept in float32.  Against the reference the only
# difference is the order of the additions: a few ULP, within the default float32 tolerance.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
SIZES = [dict(rows=64, cols=1000), dict(rows=33, cols=257)]


@triton.jit
def ragged_mean(x_ptr, len_ptr, out_ptr, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    n = tl.load(len_ptr + row)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < n, other=0.0)
        acc += x.to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total / n.to(tl.float32))


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 1000) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    lengths = torch.randint(1, cols + 1, (rows,), generator=g)
    lengths[0] = 1
    lengths[-1] = cols
    x = torch.randn(rows, cols, generator=g)
    pad = torch.arange(cols)[None, :] >= lengths[:, None]
    x = torch.where(pad, torch.full_like(x, 1.0e4), x)  # padding values that must not enter the mean
    return x.to(device), lengths.to(device)


def kernel(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    ragged_mean[(rows,)](x, lengths, out, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    keep = torch.arange(x.shape[1], device=x.device)[None, :] < lengths[:, None]
    xf = x.to(torch.float32)
    return torch.where(keep, xf, torch.zeros_like(xf)).sum(1) / lengths.to(torch.float32)
