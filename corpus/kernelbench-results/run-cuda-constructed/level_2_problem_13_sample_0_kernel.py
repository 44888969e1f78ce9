# kdiag corpus (KernelBench format, written for kdiag) — bug: the C++ declaration in cpp_sources lacks
# its semicolon; the C++ half of load_inline's build (main.cpp, compiled by the host compiler) fails.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

leaky_relu_source = """
#include <torch/extension.h>

__global__ void leaky_relu_kernel(const float* x, float* out, float slope, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        float v = x[idx];
        out[idx] = v > 0.0f ? v : v * slope;
    }
}

torch::Tensor leaky_relu_cuda(torch::Tensor x, float slope) {
    auto out = torch::empty_like(x);
    int size = x.numel();
    leaky_relu_kernel<<<(size + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), slope, size);
    return out;
}
"""

leaky_relu_cpp_source = "torch::Tensor leaky_relu_cuda(torch::Tensor x, float slope)"

leaky_relu = load_inline(
    name="leaky_relu",
    cpp_sources=leaky_relu_cpp_source,
    cuda_sources=leaky_relu_source,
    functions=["leaky_relu_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super(ModelNew, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return leaky_relu.leaky_relu_cuda(x, self.negative_slope)
