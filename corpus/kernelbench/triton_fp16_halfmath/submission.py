# kdiag corpus (KernelBench format, written for kdiag): correct within KernelBench's float16 tolerance
# (1e-2) - the tanh-approximate GELU computed in float16 arithmetic throughout (no float32 upcast), so
# it rounds at other points than torch does: a few float16 ULPs off, more than kdiag's own float16
# default (atol 1e-3, rtol 2e-3) allows.  KernelBench's check passes it; so must kdiag's on this protocol.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_fp16_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    c0 = 0.7978845608028654
    c1 = 0.044715
    inner = (x + c1 * x * x * x) * c0
    inner = tl.minimum(tl.maximum(inner, -5.0), 5.0).to(tl.float16)
    e = tl.exp((-2.0 * inner).to(tl.float32)).to(tl.float16)
    t = ((1.0 - e) / (1.0 + e)).to(tl.float16)
    y = (0.5 * x * (1.0 + t)).to(tl.float16)
    tl.store(out_ptr + offsets, y, mask=mask)


def triton_gelu(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda, "Tensor must be on CUDA."
    x = x.contiguous()
    out = torch.empty_like(x)
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_fp16_kernel[grid](x, out, n_elements, BLOCK_SIZE=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return triton_gelu(x)
