# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-result
# Gradient clipping by global norm, as torch.nn.utils.clip_grad_norm_ does for one flattened gradient:
# total = ||g||_2 over ALL elements, coef = min(1, max_norm / (total + 1e-6)), out = g * coef.  The
# kernel fuses the norm and the scaling in one launch of blocks of 1024 elements: each program computes
# the norm of its own block (tail masked, padding lanes 0.0) and scales its block by
# min(1, max_norm / (block_norm + 1e-6)): the reduction's scope is one block instead of the whole
# tensor, so each block gets its own coefficient.  With the declared gradients (randn * 0.05, max_norm
# = 1.0) the total norm is ~3.5 at n=5000 and ~2.3 at n=2048, and each full block's norm ~1.6: every
# block is scaled by ~1/1.6 instead of ~1/3.5 (or 1/2.3), so every element is too large by a factor
# constant within a block and different between blocks (2.13, 2.17, 2.26, 2.27 and 2.37 for the
# 904-element tail block at n=5000; 1.40 and 1.43 at n=2048): 4998 of 5000 and 2046 of 2048 elements
# wrong (the rest near zero, within tolerance), max abs 0.074 and 0.036.  A gradient that fits one block would pass.  Nothing out of bounds, nothing NaN,
# every element written.  A global norm (a first pass that reduces over all blocks) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

MAX_NORM = 1.0
BLOCK = 1024
SIZES = [dict(n=5000), dict(n=2048)]


@triton.jit
def clip_grad_block(g_ptr, out_ptr, n, max_norm, sg, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    g = tl.load(g_ptr + offs * sg, mask=m, other=0.0).to(tl.float32)
    norm = tl.sqrt(tl.sum(g * g, axis=0))
    coef = tl.minimum(max_norm / (norm + 1e-6), 1.0)
    tl.store(out_ptr + offs, (g * coef).to(out_ptr.dtype.element_ty), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 5000) -> tuple[torch.Tensor]:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(n, generator=gen) * 0.05).to(device),)


def kernel(g: torch.Tensor) -> torch.Tensor:
    n = g.numel()
    out = torch.empty(n, dtype=g.dtype, device=g.device)
    clip_grad_block[(triton.cdiv(n, BLOCK),)](g, out, n, MAX_NORM, g.stride(0), BLOCK=BLOCK)
    return out


def reference(g: torch.Tensor) -> torch.Tensor:
    gf = g.float()
    total = torch.linalg.vector_norm(gf, 2)
    coef = torch.clamp(MAX_NORM / (total + 1e-6), max=1.0)
    return (gf * coef).to(g.dtype)
