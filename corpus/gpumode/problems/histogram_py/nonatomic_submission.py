# expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# Bug: each element increments its bin with a plain load and store (hist[v] = hist[v] + 1) instead of
# an atomic add. Elements of one block that share a value read the same old count and all write old + 1,
# so a bin gains one per block however many of its elements fell into it; programs racing on the same
# bin lose updates too. The values are skewed, so every test's busy bins are far too low. Under the
# interpreter the programs run one after another, but the lanes of one store to the same address still
# collapse to one write: the counts come out too low, deterministically (on a GPU they also vary from
# run to run).
import torch
import triton
import triton.language as tl
from task import input_t, output_t

BLOCK = 1024


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32)
    count = tl.load(hist_ptr + v, mask=mask, other=0)
    tl.store(hist_ptr + v, count + 1, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x = data
    n = x.numel()
    hist = torch.zeros(256, dtype=torch.int32, device=x.device)
    histogram_kernel[(triton.cdiv(n, BLOCK),)](x, hist, n, BLOCK=BLOCK)
    return hist
