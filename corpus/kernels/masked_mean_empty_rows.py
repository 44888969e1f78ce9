# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# A masked mean pooling over the sequence, out[b, :] = sum_t m[b, t] * x[b, t, :] / sum_t m[b, t], as
# sentence-embedding pooling with an attention mask computes it.  The reference clamps the count to at
# least 1 (the usual `mask.sum(1).clamp(min=1)`), so a sequence whose mask is all zeros (a padded,
# empty slot of the batch) pools to 0.  The kernel divides by the raw count: for those rows it computes
# 0 / 0 = NaN in every feature.  The declared batches hold such empty sequences (rows 8 and 15 of 16,
# row 3 of 7): their whole output rows are NaN where the reference is 0.0 (256 of 2048 and 100 of 700
# elements; computed NaN, not unwritten: the other rows are right to a few ULP, max abs ~6e-8, and
# every element is written).  Nothing is out of bounds
# (the feature tail at d=100 and the sequence tail at t=45 are masked), x's and m's strides are
# honoured.  A batch without an empty sequence would pass.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_T, BLOCK_D = 16, 64
SIZES = [dict(b=16, t=64, d=128), dict(b=7, t=45, d=100)]


@triton.jit
def masked_mean(x_ptr, m_ptr, out_ptr, T, D, sxb, sxt, sxd, smb, smt, sob, sod,
                BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    cmask = cols < D
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    cnt = tl.zeros((BLOCK_T,), dtype=tl.float32)
    for t0 in range(0, T, BLOCK_T):
        t = t0 + tl.arange(0, BLOCK_T)
        tmask = t < T
        w = tl.load(m_ptr + b * smb + t * smt, mask=tmask, other=0.0)
        x = tl.load(x_ptr + b * sxb + t[:, None] * sxt + cols[None, :] * sxd,
                    mask=tmask[:, None] & cmask[None, :], other=0.0)
        acc += tl.sum(x * w[:, None], axis=0)
        cnt += w
    total = tl.sum(cnt, axis=0)
    tl.store(out_ptr + b * sob + cols * sod, acc / total, mask=cmask)  # 0 / 0 for an empty sequence


def make_inputs(device: str, seed: int = 0, b: int = 16, t: int = 64, d: int = 128) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(b, t, d, generator=g)
    lengths = torch.randint(1, t + 1, (b,), generator=g)
    lengths[b // 2] = 0  # an empty (fully padded) sequence
    if b >= 16:
        lengths[-1] = 0
    m = (torch.arange(t)[None, :] < lengths[:, None]).to(torch.float32)
    return x.to(device), m.to(device)


def kernel(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    B, T, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    grid = (B, triton.cdiv(D, BLOCK_D))
    masked_mean[grid](x, m, out, T, D, x.stride(0), x.stride(1), x.stride(2), m.stride(0), m.stride(1),
                      out.stride(0), out.stride(1), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def reference(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return (x * m[:, :, None]).sum(1) / m.sum(1, keepdim=True).clamp(min=1.0)
