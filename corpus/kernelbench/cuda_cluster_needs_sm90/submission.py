# kdiag corpus (KernelBench format, written for kdiag) — run with --target-gpu A100: the kernel uses
# thread-block clusters and distributed shared memory (sm_90 and later), which an A100 (sm_80) lacks.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rowsum_source = """
#include <torch/extension.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) row_sum_kernel(const float* x, float* out, int cols) {
    __shared__ float partial[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    int row = blockIdx.x / 2;
    float acc = 0.0f;
    for (int c = rank * blockDim.x + threadIdx.x; c < cols; c += 2 * blockDim.x) {
        acc += x[(size_t)row * cols + c];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    cluster.sync();
    if (rank == 0 && threadIdx.x == 0) {
        float* other = cluster.map_shared_rank(partial, 1);
        out[row] = partial[0] + other[0];
    }
    cluster.sync();
}

torch::Tensor row_sum_cuda(torch::Tensor x) {
    auto out = torch::empty({x.size(0)}, x.options());
    row_sum_kernel<<<x.size(0) * 2, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.size(1));
    return out;
}
"""

rowsum_cpp_source = "torch::Tensor row_sum_cuda(torch::Tensor x);"

row_sum = load_inline(
    name="row_sum_cluster",
    cpp_sources=rowsum_cpp_source,
    cuda_sources=rowsum_source,
    functions=["row_sum_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return row_sum.row_sum_cuda(x.contiguous())
