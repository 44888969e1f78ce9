# kdiag corpus (KernelBench format, written for kdiag) — cuda_stream_guard's submission (a load_inline kernel
# launched on torch's current stream under a device guard: ATen/cuda/CUDAContext.h, c10/cuda/CUDAGuard.h) with one
# bug: the kernel reads `alpah`, a name nothing declares.  On a machine whose toolkit lacks the math libraries'
# headers torch's CUDAContext.h includes, the compile check stands them in and still finds the kernel's own error.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
__global__ void scaled_relu_kernel(const float* x, float* y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 0.0f ? v * alpah : 0.0f;
    }
}

torch::Tensor scaled_relu(torch::Tensor x, double alpha) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    int threads = 256;
    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    scaled_relu_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), static_cast<float>(alpha), n);
    return y;
}
"""

cpp_source = "torch::Tensor scaled_relu(torch::Tensor x, double alpha);"

scaled_relu = load_inline(
    name="scaled_relu",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["scaled_relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, alpha: float) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return scaled_relu.scaled_relu(x.contiguous(), self.alpha)
