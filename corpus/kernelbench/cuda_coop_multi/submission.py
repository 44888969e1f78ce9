# kdiag corpus (KernelBench level-2 format, written for kdiag): two kernels in one load_inline module
# (cooperative_groups tiles for the grid-stride loop), both functions bound (functions=[...]).  No bug:
# it compiles.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scale_bias_kernel(const float* x, const float* bias, float* y, float scale, int n, int features) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        y[i] = x[i] * scale + bias[i % features];
    }
}

__global__ void tanh_kernel(float* y, int n) {
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * block.size() + block.thread_rank();
    if (i < n) y[i] = tanhf(y[i]);
}

torch::Tensor scale_bias(torch::Tensor x, torch::Tensor bias, double scale) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    scale_bias_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
                                                (float)scale, n, bias.numel());
    return y;
}

torch::Tensor tanh_inplace(torch::Tensor y) {
    int n = y.numel();
    tanh_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), n);
    return y;
}
"""

cpp_src = """
torch::Tensor scale_bias(torch::Tensor x, torch::Tensor bias, double scale);
torch::Tensor tanh_inplace(torch::Tensor y);
"""

fused = load_inline(
    name="scale_bias_tanh",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["scale_bias", "tanh_inplace"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, features, scale):
        super(ModelNew, self).__init__()
        self.bias = nn.Parameter(torch.randn(features))
        self.scale = scale

    def forward(self, x):
        y = fused.scale_bias(x.contiguous(), self.bias, self.scale)
        return fused.tanh_inplace(y)
