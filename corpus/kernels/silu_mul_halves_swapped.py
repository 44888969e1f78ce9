# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# The fused activation of a gated MLP, out = silu(gate) * up with (gate, up) = x.chunk(2, dim=-1): the
# (tokens, 2H) output of a merged gate/up projection whose FIRST half is the gate (vLLM's silu_and_mul
# layout).  One program per (token, block of 256 output columns) loads both halves through x's strides
# and stores the product.  The kernel reads the gate at column c + H and the up projection at column c,
# i.e. it computes silu(up) * gate, the layout of a checkpoint that stores [up, gate].  SiLU is not odd
# and not linear, so silu(u) * g != silu(g) * u almost everywhere: 32587 of 32768 elements wrong at
# 64x512 and 11021 of 11100 at 37x300 (only where the two halves happen to be close), max abs ~18, spread over every row
# and column, finite.  All reads stay inside x (both halves exist), the column tail (H=300) is masked,
# every element is written; the same kernel on x with its two halves exchanged matches exactly.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(tokens=64, hidden=512), dict(tokens=37, hidden=300)]


@triton.jit
def silu_and_mul(x_ptr, out_ptr, H, sxr, sxc, sor, soc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < H
    up = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=0.0).to(tl.float32)  # bug: this half is the gate
    gate = tl.load(x_ptr + row * sxr + (c + H) * sxc, mask=m, other=0.0).to(tl.float32)  # and this one is up
    y = gate * tl.sigmoid(gate) * up
    tl.store(out_ptr + row * sor + c * soc, y, mask=m)


def make_inputs(device: str, seed: int = 0, tokens: int = 64, hidden: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(tokens, 2 * hidden, generator=g) * 1.5).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    T, H2 = x.shape
    H = H2 // 2
    out = torch.empty((T, H), dtype=torch.float32, device=x.device)
    silu_and_mul[(T, triton.cdiv(H, BLOCK))](x, out, H, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                             BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    gate, up = x.to(torch.float32).chunk(2, dim=-1)
    return F.silu(gate) * up
