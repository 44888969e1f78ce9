# kdiag corpus (KernelBench format, written for kdiag): SiLU as a templated load_inline CUDA kernel with a
# __nv_bfloat16 specialisation (cuda_bf16.h), dispatched from the host.  No bug: it compiles.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

silu_source = r"""
#include <torch/extension.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <typename T>
__device__ __forceinline__ float to_float(T v) { return static_cast<float>(v); }
template <>
__device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v) { return static_cast<T>(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <typename T>
__global__ void silu_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = to_float<T>(x[i]);
        y[i] = from_float<T>(v / (1.0f + __expf(-v)));
    }
}

torch::Tensor silu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    int threads = 256;
    int blocks = (int)((n + threads - 1) / threads);
    if (x.scalar_type() == at::kBFloat16) {
        silu_kernel<__nv_bfloat16><<<blocks, threads>>>(
            reinterpret_cast<const __nv_bfloat16*>(x.data_ptr<at::BFloat16>()),
            reinterpret_cast<__nv_bfloat16*>(y.data_ptr<at::BFloat16>()), n);
    } else {
        silu_kernel<float><<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    }
    return y;
}
"""

silu_cpp_source = "torch::Tensor silu_cuda(torch::Tensor x);"

silu = load_inline(
    name="silu_bf16",
    cpp_sources=silu_cpp_source,
    cuda_sources=silu_source,
    functions=["silu_cuda"],
    verbose=True,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.silu = silu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.silu.silu_cuda(x.contiguous())
