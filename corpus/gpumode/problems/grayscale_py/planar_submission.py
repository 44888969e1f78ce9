#!POPCORN leaderboard grayscale
# kdiag corpus (GPU MODE format, written for kdiag): grayscale in Triton over the interleaved (H, W, 3)
# layout -- bug: it reads the channels as planar (R plane, then G, then B: p, npix + p, 2 npix + p),
# which is not how the harness's (H, W, 3) input is laid out.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def gray_kernel(rgb_ptr, out_ptr, npix, BLOCK: tl.constexpr):
    p = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = p < npix
    r = tl.load(rgb_ptr + p, mask=m)
    g = tl.load(rgb_ptr + npix + p, mask=m)
    b = tl.load(rgb_ptr + 2 * npix + p, mask=m)
    tl.store(out_ptr + p, 0.2989 * r + 0.5870 * g + 0.1140 * b, mask=m)


def custom_kernel(data: input_t) -> output_t:
    H, W, _ = data.shape
    out = torch.empty((H, W), device=data.device, dtype=data.dtype)
    npix = H * W
    gray_kernel[(triton.cdiv(npix, 256),)](data, out, npix, BLOCK=256)
    return out
