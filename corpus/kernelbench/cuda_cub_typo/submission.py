# kdiag corpus (KernelBench format, written for kdiag) -- bug: a row sum with cub::BlockReduce whose
# TempStorage is declared as `temp_storage` but used as `temp` (an undeclared identifier).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rowsum_source = """
#include <torch/extension.h>
#include <cub/block/block_reduce.cuh>

constexpr int THREADS = 256;

__global__ void rowsum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    typedef cub::BlockReduce<float, THREADS> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp_storage;
    const float* row = x + (size_t)blockIdx.x * cols;
    float local = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        local += row[c];
    }
    float total = BlockReduce(temp).Sum(local);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = total;
    }
}

torch::Tensor rowsum_cuda(torch::Tensor x) {
    auto out = torch::empty({x.size(0)}, x.options());
    rowsum_kernel<<<x.size(0), THREADS>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.size(1));
    return out;
}
"""

rowsum_cpp = "torch::Tensor rowsum_cuda(torch::Tensor x);"

rowsum = load_inline(
    name="rowsum_cub",
    cpp_sources=rowsum_cpp,
    cuda_sources=rowsum_source,
    functions=["rowsum_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rowsum.rowsum_cuda(x.contiguous())
