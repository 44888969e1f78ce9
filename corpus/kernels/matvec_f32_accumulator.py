# kdiag corpus kernel — expected: verdict=pass, category=none
# The correct twin of matvec_fp16_accumulator.py: the same matrix-vector product of float16 inputs, ONE
# declared size, with the running sum in float32 (tl.zeros(..., dtype=tl.float32)) and no rounding
# until the store.  It differs from the reference's float32 sum only in the order of the additions
# (a few ULP of float32, inside the default tolerance): no accumulation finding, no false alarm.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_K = 64
SIZES = [dict(m=64, k=4096)]


@triton.jit
def matvec(a_ptr, x_ptr, y_ptr, m, k, stride_am, stride_ak, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for start in range(0, k, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :] * stride_ak,
                    mask=(rows[:, None] < m) & (cols[None, :] < k), other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < k, other=0.0)
        acc += tl.sum(a.to(tl.float32) * x.to(tl.float32)[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < m)


def make_inputs(device: str, seed: int = 0, m: int = 64, k: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.rand(m, k, generator=g).to(torch.float16).to(device)  # positive: no cancellation
    x = torch.rand(k, generator=g).to(torch.float16).to(device)
    return a, x


def kernel(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    y = torch.empty(m, dtype=torch.float32, device=a.device)
    matvec[(triton.cdiv(m, BLOCK_M),)](a, x, y, m, k, a.stride(0), a.stride(1), BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
    return y


def reference(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return a.float() @ x.float()
