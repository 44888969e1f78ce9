#!POPCORN leaderboard vectoradd
# kdiag corpus (GPU MODE format, written for kdiag): vectoradd as GPU MODE's Blackwell (B200) problems take
# submissions, a load_inline module built for the arch its extra_cuda_cflags name (-arch=sm_100a) and using an
# instruction only that target has (tcgen05's fence). No bug. Compiled for kdiag's default target (sm_90) it would
# fail in ptxas as if the kernel assumed a newer GPU; the harness's nvcc builds it for sm_100a, where it compiles.
# Without a GPU: no-result, compiled for sm_100a.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

CPP = "torch::Tensor add(torch::Tensor a, torch::Tensor b);"

CUDA = r"""
#include <cuda_fp16.h>

__global__ void add_kernel(const __half* a, const __half* b, __half* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("tcgen05.fence::before_thread_sync;");
    if (i < n) c[i] = __hadd(a[i], b[i]);
}

torch::Tensor add(torch::Tensor a, torch::Tensor b) {
    auto c = torch::empty_like(a);
    int n = a.numel();
    add_kernel<<<(n + 255) / 256, 256>>>(reinterpret_cast<const __half*>(a.data_ptr<at::Half>()),
                                         reinterpret_cast<const __half*>(b.data_ptr<at::Half>()),
                                         reinterpret_cast<__half*>(c.data_ptr<at::Half>()), n);
    return c;
}
"""

add_module = load_inline(
    name="vectoradd_sm100a",
    cpp_sources=[CPP],
    cuda_sources=[CUDA],
    functions=["add"],
    extra_cuda_cflags=["-arch=sm_100a", "-O3"],
)


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    return add_module.add(a, b)
