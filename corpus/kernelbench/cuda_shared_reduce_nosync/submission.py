# kdiag corpus (KernelBench format, written for kdiag) -- bug: the shared-memory tree reduction has no
# __syncthreads() between its steps (nor after the first store), so a thread may read a partner's slot
# before it is written: a race that compiles cleanly.  Without a GPU it can only be compiled:
# expected no-result ("compiles for sm_90 ...; cannot run here").
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

row_sum_source = """
#include <torch/extension.h>

__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    extern __shared__ float sdata[];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        sum += x[row * cols + c];
    }
    sdata[tid] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
    }
    if (tid == 0) {
        out[row] = sdata[0];
    }
}

torch::Tensor row_sum_cuda(torch::Tensor x) {
    auto rows = x.size(0);
    auto cols = x.size(1);
    auto out = torch::empty({rows, 1}, x.options());
    const int threads = 256;
    row_sum_kernel<<<rows, threads, threads * sizeof(float)>>>(x.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

row_sum_cpp_source = "torch::Tensor row_sum_cuda(torch::Tensor x);"

row_sum = load_inline(
    name="row_sum",
    cpp_sources=row_sum_cpp_source,
    cuda_sources=row_sum_source,
    functions=["row_sum_cuda"],
    verbose=True,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.row_sum = row_sum

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.row_sum.row_sum_cuda(x.contiguous())
