# kdiag corpus (KernelBench format, written for kdiag) — expected: verdict=fail, category=kernel-logic,
# failure_mode=compile-source-error.  The kernel reads `scale`, a name that is never declared (the
# parameter is `alpha`): nvcc rejects the source with `identifier "scale" is undefined`.  kdiag finds
# the source in load_inline's cuda_sources without running this file and compiles it for the target arch.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
__global__ void scaled_relu_kernel(const float* x, float* y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 0.0f ? v * scale : 0.0f;
    }
}

torch::Tensor scaled_relu(torch::Tensor x, double alpha) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    int threads = 256;
    scaled_relu_kernel<<<(n + threads - 1) / threads, threads>>>(
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
