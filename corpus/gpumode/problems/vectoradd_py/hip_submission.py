#!POPCORN leaderboard vectoradd
# kdiag corpus (GPU MODE format, written for kdiag): vectoradd as GPU MODE's AMD problems take submissions, a
# load_inline module whose cuda_sources are HIP (a ROCm build of torch compiles them with hipcc for the
# --offload-arch it is given). No bug. nvcc cannot check HIP, and only an AMD GPU with a ROCm build of torch
# runs it: on this machine, no-result, and the report says the source is HIP.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

CPP = "torch::Tensor add(torch::Tensor a, torch::Tensor b);"

HIP = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <torch/extension.h>

__global__ void add_kernel(const __half* a, const __half* b, __half* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hadd(a[i], b[i]);
}

torch::Tensor add(torch::Tensor a, torch::Tensor b) {
    auto c = torch::empty_like(a);
    int n = a.numel();
    hipLaunchKernelGGL(add_kernel, dim3((n + 255) / 256), dim3(256), 0, 0,
                       reinterpret_cast<const __half*>(a.data_ptr<at::Half>()),
                       reinterpret_cast<const __half*>(b.data_ptr<at::Half>()),
                       reinterpret_cast<__half*>(c.data_ptr<at::Half>()), n);
    return c;
}
"""

add_module = load_inline(
    name="vectoradd_hip",
    cpp_sources=[CPP],
    cuda_sources=[HIP],
    functions=["add"],
    extra_cuda_cflags=["--offload-arch=gfx942", "-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    return add_module.add(a, b)
