# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-output-dtype
# Top-1 routing for a mixture-of-experts layer: for each token, the expert with the largest router logit
# and its softmax probability, returned as (weight float32 (T,), expert int64 (T,)) as
# torch.softmax(logits, -1).max(-1) returns them.  One program per block of 16 tokens loads a (16, E)
# tile (experts masked with -inf to the next power of two), takes tl.max / tl.argmax along the experts and
# the probability of the winner as 1 / sum(exp(x - max)).  The index buffer is allocated with
# torch.empty_like(weight), i.e. float32, and the expert index is stored into it as a float: the values
# are the right expert numbers (exact in float32 for any realistic E) but the tensor the caller gets is
# float32 where an integer index tensor is expected (it cannot be used to index or gather experts;
# torch.gather / index_select reject it).  At both declared sizes the weights match the reference within
# a few ULP and the index output differs in dtype only (float32 vs int64), every value equal.  Nothing
# out of bounds, every element written.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_T = 16
SIZES = [dict(tokens=256, experts=8), dict(tokens=100, experts=60)]


@triton.jit
def top1_route(x_ptr, w_ptr, idx_ptr, T, E, sxt, sxe, BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    e = tl.arange(0, BLOCK_E)
    m = (t[:, None] < T) & (e[None, :] < E)
    x = tl.load(x_ptr + t[:, None] * sxt + e[None, :] * sxe, mask=m, other=0.0).to(tl.float32)
    x = tl.where(e[None, :] < E, x, -float("inf"))
    xmax = tl.max(x, axis=1)
    best = tl.argmax(x, axis=1)
    den = tl.sum(tl.exp(x - xmax[:, None]), axis=1)
    tl.store(w_ptr + t, 1.0 / den, mask=t < T)
    tl.store(idx_ptr + t, best, mask=t < T)  # converted to the buffer's element type: float32


def make_inputs(device: str, seed: int = 0, tokens: int = 256, experts: int = 8) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(tokens, experts, generator=g) * 2.0).to(device),)


def kernel(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    T, E = logits.shape
    weight = torch.empty(T, dtype=torch.float32, device=logits.device)
    expert = torch.empty_like(weight)  # bug: torch.empty(T, dtype=torch.int64, ...)
    top1_route[(triton.cdiv(T, BLOCK_T),)](logits, weight, expert, T, E, logits.stride(0), logits.stride(1),
                                          BLOCK_T=BLOCK_T, BLOCK_E=triton.next_power_of_2(E))
    return weight, expert


def reference(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    w, i = torch.softmax(logits.to(torch.float32), dim=-1).max(dim=-1)
    return w, i
