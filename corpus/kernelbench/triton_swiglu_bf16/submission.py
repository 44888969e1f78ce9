# kdiag corpus (KernelBench format, written for kdiag): the two projections stay in PyTorch (bfloat16);
# the SiLU-and-multiply is one Triton kernel that upcasts to float32 for the sigmoid and rounds the
# product back to bfloat16.  No bug.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_mul_kernel(g_ptr, u_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + offs, y.to(tl.bfloat16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, intermediate: int):
        super(ModelNew, self).__init__()
        self.gate = nn.Linear(hidden, intermediate, bias=False).to(torch.bfloat16)
        self.up = nn.Linear(hidden, intermediate, bias=False).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = self.gate(x).contiguous()
        u = self.up(x).contiguous()
        out = torch.empty_like(g)
        n = g.numel()
        silu_mul_kernel[(triton.cdiv(n, 1024),)](g, u, out, n, BLOCK=1024)
        return out
