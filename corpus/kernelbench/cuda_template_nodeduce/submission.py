# kdiag corpus (KernelBench format, written for kdiag) -- bug: the __half kernel template's VEC parameter
# cannot be deduced from the call (no template argument given), so nvcc rejects the launch.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mul_source = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>

template <int VEC>
__global__ void mul_half_kernel(const __half* a, const __half* b, __half* out, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
    #pragma unroll
    for (int v = 0; v < VEC; ++v) {
        int i = base + v;
        if (i < n) out[i] = __hmul(a[i], b[i]);
    }
}

torch::Tensor mul_half(torch::Tensor a, torch::Tensor b) {
    auto out = torch::empty_like(a);
    int n = a.numel();
    int threads = 256;
    int blocks = (n + threads * 4 - 1) / (threads * 4);
    mul_half_kernel<<<blocks, threads>>>(
        reinterpret_cast<const __half*>(a.data_ptr<at::Half>()),
        reinterpret_cast<const __half*>(b.data_ptr<at::Half>()),
        reinterpret_cast<__half*>(out.data_ptr<at::Half>()), n);
    return out;
}
"""

mul = load_inline(
    name="mul_half",
    cpp_sources="torch::Tensor mul_half(torch::Tensor a, torch::Tensor b);",
    cuda_sources=mul_source,
    functions=["mul_half"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, a, b):
        return mul.mul_half(a.contiguous(), b.contiguous())
