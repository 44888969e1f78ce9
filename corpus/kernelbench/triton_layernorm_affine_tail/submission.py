# kdiag corpus (KernelBench format, written for kdiag) -- bug: the variance sums (x - mean)^2 over the
# whole block of 1024 lanes; the masked lanes loaded 0.0, so each adds mean^2 to it (no tl.where on the
# centred values).  Right only when the row length is a multiple of the block.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    xc = x - mean
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, xc * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super(ModelNew, self).__init__()
        self.ln = nn.LayerNorm(features)
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        layernorm_kernel[(M,)](x, self.ln.weight, self.ln.bias, y, N, self.ln.eps, BLOCK=triton.next_power_of_2(N))
        return y
