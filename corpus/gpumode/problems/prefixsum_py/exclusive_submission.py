#!POPCORN leaderboard prefixsum
# Wrong: the same two-pass scan, but each block writes the exclusive scan (tl.cumsum minus the element
# itself): every output lags one element behind, out[i] = data[0] + ... + data[i - 1].
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def block_scan_kernel(x_ptr, y_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.cumsum(x, axis=0) - x
    tl.store(y_ptr + offs, y, mask=mask)
    tl.store(totals_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def add_offsets_kernel(y_ptr, offsets_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, y + tl.load(offsets_ptr + pid), mask=mask)


def custom_kernel(data: input_t) -> output_t:
    n = data.numel()
    blocks = triton.cdiv(n, 1024)
    out = torch.empty_like(data)
    totals = torch.empty(blocks, device=data.device, dtype=torch.float32)
    block_scan_kernel[(blocks,)](data, out, totals, n, BLOCK=1024)
    offsets = (torch.cumsum(totals.double(), dim=0) - totals.double()).float()
    add_offsets_kernel[(blocks,)](out, offsets, n, BLOCK=1024)
    return out
