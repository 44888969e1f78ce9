# expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# Bug: the tail mask is offs <= n instead of offs < n, so the program holding the end of the input also
# loads the byte at index n, one past the end of the uint8 tensor, and counts it. Every test size is
# not a multiple of the block, so in every test one bin (whichever the stray byte's value is) is one
# too high. Triton's interpreter does not check bounds: it reads whatever byte lies after the
# allocation (no crash) and the histogram has exactly one count too many; a bounds-checked run flags the
# load at element n.
import torch
import triton
import triton.language as tl
from task import input_t, output_t

BLOCK = 1024


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, NUM_BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs <= n
    v = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32)
    local = tl.histogram(v, NUM_BINS, mask=mask)
    tl.atomic_add(hist_ptr + tl.arange(0, NUM_BINS), local)


def custom_kernel(data: input_t) -> output_t:
    x = data
    n = x.numel()
    hist = torch.zeros(256, dtype=torch.int32, device=x.device)
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, hist, n, BLOCK=BLOCK, NUM_BINS=256)
    return hist
