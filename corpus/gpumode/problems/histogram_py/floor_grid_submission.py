# expected: verdict=fail, category=kernel-logic, failure_mode=wrong-launch-grid
# Bug: the grid is n // BLOCK programs (floor division) instead of cdiv(n, BLOCK), so the last partial
# block of the input is never counted (the mask in the kernel is right, there is just no program for the
# tail). Every test size is not a multiple of 1024: test 1 (1000 elements) launches no program at all and
# returns 256 zeros; tests 2 and 3 miss their last 57 and 3 elements (counts too low in a few bins).
# Without a GPU the interpreter gives the same counts; nothing is read out of bounds.
import torch
import triton
import triton.language as tl
from task import input_t, output_t

BLOCK = 1024


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, NUM_BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32)
    local = tl.histogram(v, NUM_BINS, mask=mask)
    tl.atomic_add(hist_ptr + tl.arange(0, NUM_BINS), local)


def custom_kernel(data: input_t) -> output_t:
    x = data
    n = x.numel()
    hist = torch.zeros(256, dtype=torch.int32, device=x.device)
    histogram_kernel[(n // BLOCK,)](x, hist, n, BLOCK=BLOCK, NUM_BINS=256)
    return hist
