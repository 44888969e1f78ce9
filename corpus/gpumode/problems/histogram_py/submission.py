# expected: verdict=pass, category=none, failure_mode=none
# A correct Triton histogram: each program counts its block of values into a private 256-bin histogram
# (tl.histogram with the tail masked off), then adds it to the global counts with one atomic add per
# bin (bins are distinct within a program, programs are combined atomically).
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
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, hist, n, BLOCK=BLOCK, NUM_BINS=256)
    return hist
