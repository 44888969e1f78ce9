# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-write
# A residual add with a scale, out = (x + res) * alpha, for float16 activations, computed in float32.
# The kernel takes its output's element type as a constexpr, OUT_DTYPE, and casts the output pointer
# to it (`out_ptr.to(tl.pointer_type(OUT_DTYPE))`, so one kernel can serve float16, bfloat16 and
# float32 outputs).  OUT_DTYPE defaults to tl.float32 and the wrapper never passes it, while the
# output is allocated as float16 like the reference's: every element is stored as 4 bytes through a
# float32 pointer into a 2-byte-per-element tensor.  Element i lands on the bytes of out[2i] and
# out[2i+1], so the first half of out holds float32 bit patterns split in two (read as float16: a
# garbage low half, a high half of the wrong magnitude, e.g. 1.705 for 0.411), and the stores of
# the second half of the elements go past the end of out: n * 2 bytes, as far again as out itself
# (1024 bytes past the end at n=512, 600 at n=300).  The plain interpreter checks no bounds and
# writes over whatever follows out: here it corrupted the heap and the process died (glibc's "double
# free or corruption" abort, or a segmentation fault) during or after the run.  Bounds checks on the stores see every store with
# i >= n/2 past the end of out at every declared size, and the values are wrong almost everywhere
# (512 of 512 at n=512).  Loads are in bounds.  Passing OUT_DTYPE=tl.float16 (or dropping the cast)
# makes it exact.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 256
ALPHA = 0.5
SIZES = [dict(n=512), dict(n=300)]


@triton.jit
def residual_scale(x_ptr, r_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, OUT_DTYPE: tl.constexpr = tl.float32):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = (x + r) * alpha
    out = out_ptr.to(tl.pointer_type(OUT_DTYPE))
    tl.store(out + offs, y.to(OUT_DTYPE), mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 512):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(n, generator=g).to(torch.float16)
    r = torch.randn(n, generator=g).to(torch.float16)
    return x.to(device), r.to(device)


def kernel(x: torch.Tensor, res: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    out = torch.empty_like(x)
    residual_scale[(triton.cdiv(n, BLOCK),)](x, res, out, n, ALPHA, BLOCK=BLOCK)  # bug: OUT_DTYPE=tl.float16
    return out


def reference(x: torch.Tensor, res: torch.Tensor) -> torch.Tensor:
    return ((x.float() + res.float()) * ALPHA).to(x.dtype)
