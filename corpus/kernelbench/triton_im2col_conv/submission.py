# kdiag corpus (KernelBench format, written for kdiag): Conv2d as a Triton im2col kernel (one program
# per output pixel, zero padding from masks on all four borders) followed by a matmul with the
# flattened weight and the bias in PyTorch.  No bug.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def im2col_kernel(x_ptr, col_ptr, C, H, W, KS: tl.constexpr, PAD: tl.constexpr, BLOCK: tl.constexpr):
    pix = tl.program_id(0)  # n * H * W + oh * W + ow
    n = pix // (H * W)
    oh = (pix // W) % H
    ow = pix % W
    j = tl.arange(0, BLOCK)  # c * KS * KS + kh * KS + kw
    c = j // (KS * KS)
    kh = (j // KS) % KS
    kw = j % KS
    ih = oh - PAD + kh
    iw = ow - PAD + kw
    valid = (j < C * KS * KS) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    v = tl.load(x_ptr + ((n * C + c) * H + ih) * W + iw, mask=valid, other=0.0)
    tl.store(col_ptr + pix * C * KS * KS + j, v, mask=j < C * KS * KS)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, H, W = x.shape
        ks = self.conv.kernel_size[0]
        cols = torch.empty((N * H * W, C * ks * ks), device=x.device, dtype=x.dtype)
        im2col_kernel[(N * H * W,)](x, cols, C, H, W, KS=ks, PAD=1, BLOCK=triton.next_power_of_2(C * ks * ks))
        w = self.conv.weight.reshape(self.conv.out_channels, -1)
        out = cols @ w.T + self.conv.bias
        return out.reshape(N, H, W, -1).permute(0, 3, 1, 2).contiguous()
