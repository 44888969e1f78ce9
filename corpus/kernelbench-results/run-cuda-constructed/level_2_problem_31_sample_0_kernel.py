# kdiag corpus (KernelBench format, written for kdiag) — bug: the row offset multiplies by the block
# width twice (row * cols * blockDim.x), so every row after the first reads and writes far past the
# tensors: on a GPU, an illegal memory access.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

row_scale_source = """
#include <torch/extension.h>

__global__ void row_scale_kernel(const float* x, const float* s, float* out, int cols) {
    int row = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        size_t at = (size_t)row * cols * blockDim.x + c;
        out[at] = x[at] * s[row];
    }
}

torch::Tensor row_scale_cuda(torch::Tensor x, torch::Tensor s) {
    auto out = torch::empty_like(x);
    row_scale_kernel<<<x.size(0), 256>>>(x.data_ptr<float>(), s.data_ptr<float>(), out.data_ptr<float>(), x.size(1));
    return out;
}
"""

row_scale_cpp_source = "torch::Tensor row_scale_cuda(torch::Tensor x, torch::Tensor s);"

row_scale = load_inline(
    name="row_scale",
    cpp_sources=row_scale_cpp_source,
    cuda_sources=row_scale_source,
    functions=["row_scale_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x, s):
        return row_scale.row_scale_cuda(x.contiguous(), s.contiguous())
