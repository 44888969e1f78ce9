import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
__global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}
torch::Tensor scale_cuda(torch::Tensor x) {
    scale<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), x.numel());
    return x;
}
"""

ext = load_inline(name="scale_ext", cpp_sources="torch::Tensor scale_cuda(torch::Tensor x);",
                  cuda_sources=source, functions=["scale_cuda"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.scale_cuda(x)
