# kdiag corpus (KernelBench level-2 format, written for kdiag): the convolution as F.unfold (im2col) and a
# Triton GEMM with bias and ReLU fused in its epilogue, its tl.dot exact (input_precision="ieee").  No bug.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def gemm_bias_relu(w_ptr, col_ptr, b_ptr, out_ptr, O, L, CK, BO: tl.constexpr, BL: tl.constexpr, BK: tl.constexpr):
    po = tl.program_id(0)
    pl = tl.program_id(1)
    ro = po * BO + tl.arange(0, BO)
    rl = pl * BL + tl.arange(0, BL)
    acc = tl.zeros((BO, BL), dtype=tl.float32)
    for k0 in range(0, CK, BK):
        rk = k0 + tl.arange(0, BK)
        w = tl.load(w_ptr + ro[:, None] * CK + rk[None, :], mask=(ro[:, None] < O) & (rk[None, :] < CK), other=0.0)
        c = tl.load(col_ptr + rk[:, None] * L + rl[None, :], mask=(rk[:, None] < CK) & (rl[None, :] < L), other=0.0)
        acc += tl.dot(w, c, input_precision="ieee")
    bias = tl.load(b_ptr + ro, mask=ro < O, other=0.0)
    acc = tl.maximum(acc + bias[:, None], 0.0)
    tl.store(out_ptr + ro[:, None] * L + rl[None, :], acc, mask=(ro[:, None] < O) & (rl[None, :] < L))


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)

    def forward(self, x):
        B, C, H, W = x.shape
        k = self.conv.kernel_size[0]
        cols = F.unfold(x, k, padding=1)  # (B, C*k*k, H*W)
        O = self.conv.out_channels
        w = self.conv.weight.reshape(O, -1).contiguous()
        out = torch.empty((B, O, H * W), device=x.device, dtype=x.dtype)
        L, CK = H * W, C * k * k
        for b in range(B):
            grid = (triton.cdiv(O, 16), triton.cdiv(L, 32))
            gemm_bias_relu[grid](w, cols[b].contiguous(), self.conv.bias, out[b], O, L, CK, BO=16, BL=32, BK=32)
        return out.view(B, O, H, W)
