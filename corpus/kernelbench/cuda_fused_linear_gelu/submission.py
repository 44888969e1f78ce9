# kdiag corpus (KernelBench format, written for kdiag) — a correct load_inline submission: the GEMM
# stays in torch, the GELU is a CUDA kernel with TORCH_CHECKs on its input.  Without a GPU it can only
# be compiled: no-result, "compiles for sm_XX, cannot run: no GPU".
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gelu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void gelu_tanh_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
        y[idx] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

torch::Tensor gelu_tanh_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    const int block_size = 256;
    const int num_blocks = (n + block_size - 1) / block_size;
    gelu_tanh_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

gelu_cpp_source = "torch::Tensor gelu_tanh_cuda(torch::Tensor x);"

gelu_tanh = load_inline(
    name="gelu_tanh",
    cpp_sources=gelu_cpp_source,
    cuda_sources=gelu_source,
    functions=["gelu_tanh_cuda"],
    verbose=True,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gelu = gelu_tanh

    def forward(self, x):
        return self.gelu.gelu_tanh_cuda(self.linear(x).contiguous())
