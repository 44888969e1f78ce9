# kdiag corpus (KernelBench format, written for kdiag) -- bug: the GELU kernel builds tanh from tl.exp
# on the bfloat16 values it loaded; Triton's tl.exp accepts float32 / float64 only, so the kernel does
# not compile (the fix: .to(tl.float32) after the load).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)
    e = tl.exp(-2.0 * inner)
    t = (1.0 - e) / (1.0 + e)
    y = 0.5 * x * (1.0 + t)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear(x).contiguous()
        y = torch.empty_like(h)
        n = h.numel()
        gelu_tanh_kernel[(triton.cdiv(n, 1024),)](h, y, n, BLOCK=1024)
        return y
