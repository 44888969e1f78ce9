# A correct Triton vectoradd for the harness's inputs (contiguous, as generate_input makes them):
# it indexes the flat storage, so a strided view would be read wrongly -- outside the harness's contract.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    out = torch.empty(a.shape, dtype=a.dtype, device=a.device)
    n = a.numel()
    add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
