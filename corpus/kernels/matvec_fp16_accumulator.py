# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# A matrix-vector product y = A @ x of float16 inputs into a float32 output, as the reference computes
# it (A.float() @ x.float()), but each row's running sum is kept in float16: `acc` is allocated with
# dtype=tl.float16 and every block's partial dot product is rounded to float16 before it is added.
# Unlike fp16_accumulator.py it declares ONE size, as a benchmark problem does: the error growth with
# the reduction length comes from kdiag's sweep (the same size re-run at k/16 and k/4), and the
# accumulator's type from the static check of the source.  matvec_f32_accumulator.py is its correct twin.
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
    acc = tl.zeros((BLOCK_M,), dtype=tl.float16)  # bug: a float16 running sum (tl.float32 is right)
    for start in range(0, k, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :] * stride_ak,
                    mask=(rows[:, None] < m) & (cols[None, :] < k), other=0.0)
        x = tl.load(x_ptr + cols, mask=cols < k, other=0.0)
        acc += tl.sum(a.to(tl.float32) * x.to(tl.float32)[None, :], axis=1).to(tl.float16)
    tl.store(y_ptr + rows, acc.to(tl.float32), mask=rows < m)


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
