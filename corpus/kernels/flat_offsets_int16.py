# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-write
# An elementwise affine on a flat buffer, out = x * alpha + beta, whose offsets are narrowed to int16
# ("the tensors here are small, and 16-bit offsets halve the index registers"): offs =
# (pid * BLOCK + tl.arange(0, BLOCK)).to(tl.int16), then masked with offs < n and added to the pointers.
# int16 holds offsets up to 32767.  At the declared n=4096 every offset fits and the result is exact; at
# the declared n=50000 the offsets 32768..49999 wrap to -32768..-15537 and pass the mask (negative < n),
# and so do the last block's padding lanes 50000..50175 (-15536..-15361): 17408 loads and stores at
# element offsets -32768..-15361, i.e. 131072..61444 bytes BEFORE the start of x and of out, while
# out[32768:50000] (17232 elements, a tail of the output) is never written and keeps the allocation's
# content (the sentinel, with a filled output).  The first 32768 elements are right.  The plain
# interpreter writes into whatever lies before out (it can land inside x when x was allocated just
# before out, so the input comes back modified; or corrupt the heap and crash); bounds checks see them.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 1024
SIZES = [dict(n=4096), dict(n=50000)]


@triton.jit
def affine_flat(x_ptr, out_ptr, n, alpha, beta, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK)).to(tl.int16)  # bug: wraps above 32767
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, x * alpha + beta, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(n, generator=g).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    n = x.numel()
    out = torch.empty_like(x)
    affine_flat[(triton.cdiv(n, BLOCK),)](x, out, n, 0.5, 0.25, BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5 + 0.25
