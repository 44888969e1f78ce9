# kdiag corpus (KernelBench format, written for kdiag) — bug: the kernel takes __half pointers but the
# wrapper passes data_ptr<float>() (a type error nvcc reports), the commonest fp16 slip.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mul_source = """
#include <torch/extension.h>
#include <cuda_fp16.h>

__global__ void half_mul_kernel(const __half* a, const __half* b, __half* out, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        out[idx] = __hmul(a[idx], b[idx]);
    }
}

torch::Tensor half_mul_cuda(torch::Tensor a, torch::Tensor b) {
    auto out = torch::empty_like(a);
    int size = a.numel();
    const int block_size = 256;
    const int num_blocks = (size + block_size - 1) / block_size;
    half_mul_kernel<<<num_blocks, block_size>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), size);
    return out;
}
"""

mul_cpp_source = "torch::Tensor half_mul_cuda(torch::Tensor a, torch::Tensor b);"

half_mul = load_inline(
    name="half_mul",
    cpp_sources=mul_cpp_source,
    cuda_sources=mul_source,
    functions=["half_mul_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.half_mul = half_mul

    def forward(self, a, b):
        return self.half_mul.half_mul_cuda(a, b)
