# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=language-misuse
# Batched 8x8 matrix products with tl.dot.  The interpreter computes them (correctly: the output
# matches the reference), but Triton's compiler requires K >= 16 for tl.dot on NVIDIA targets, so
# compiling the very same launch for the target GPU fails:
#   CompilationError ... Input shapes should have M >= 1, N >= 1 and K >= 16
# The kernel would never run on a GPU: a misuse of the language that only the compiler rejects.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(batch=4)]
TOLERANCE = dict(atol=1e-2, rtol=1e-2)  # float16 inputs, float32 accumulation


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr, D: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, D)
    idx = pid * D * D + r[:, None] * D + r[None, :]
    a = tl.load(a_ptr + idx)
    b = tl.load(b_ptr + idx)
    c = tl.dot(a, b)
    tl.store(c_ptr + idx, c)


def make_inputs(device: str, seed: int = 0, batch: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(batch, 8, 8, generator=g).to(torch.float16).to(device)
    b = torch.randn(batch, 8, 8, generator=g).to(torch.float16).to(device)
    return a, b


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    c = torch.empty(a.shape, dtype=torch.float32, device=a.device)
    small_dot[(a.shape[0],)](a, b, c, D=8)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a.float(), b.float())
