# kdiag corpus kernel — expected: verdict=assumption, category=runtime-assumption, failure_mode=noncontiguous-input
# QuickGELU, out = x * sigmoid(1.702 * x) (the activation of CLIP's MLP), as a flat elementwise kernel over
# x.numel() elements of the underlying storage: out = torch.empty_like(x), and both x and out are addressed
# as x_ptr + offs, out_ptr + offs with no strides.  That is right for any DENSE input: a contiguous tensor,
# and also a transposed or permuted one, because empty_like keeps a dense input's strides, so element k of
# x's storage and element k of out's storage are the same logical element.  Every declared input is
# contiguous (tails masked: 37x300 is not a multiple of the block), so the declared sizes pass, and a
# transposed-view probe passes too.  A view that is not dense, such as a column slice of a wider buffer
# (row-padded, stride(0) > cols), breaks it: empty_like then returns a contiguous out, while the kernel
# reads the first numel elements of x's storage, which include the padding columns and stop short of the
# last rows: row 0 right, the later rows shifted by the padding (wrong almost everywhere).  The reads stay
# inside the padded buffer (numel < its storage) and the stores inside out.  The kernel assumes dense inputs.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 1024
SIZES = [dict(rows=64, cols=512), dict(rows=37, cols=300)]


@triton.jit
def quick_gelu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = x * tl.sigmoid(1.702 * x)
    tl.store(out_ptr + offs, y, mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 512) -> tuple[torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    return ((torch.randn(rows, cols, generator=g) * 2.0).to(device),)


def kernel(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)  # keeps x's layout when x is dense
    n = x.numel()
    quick_gelu[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)  # flat over the storage: assumes x is dense
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(1.702 * x)
