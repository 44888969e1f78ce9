#!POPCORN leaderboard rmsnorm
# A correct CUDA submission through load_inline: one block per row, a shared-memory reduction.
import torch
from task import input_t, output_t
from torch.utils.cpp_extension import load_inline

CUDA_SRC = """
#include <torch/extension.h>

__global__ void rmsnorm_kernel(const float* x, const float* w, float* out, int cols, float eps) {
    extern __shared__ float sums[];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) acc += xr[j] * xr[j];
    sums[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sums[threadIdx.x] += sums[threadIdx.x + s];
        __syncthreads();
    }
    float inv = rsqrtf(sums[0] / cols + eps);
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        out[(size_t)blockIdx.x * cols + j] = xr[j] * inv * w[j];
}

torch::Tensor rmsnorm(torch::Tensor x, torch::Tensor w, torch::Tensor out) {
    int rows = x.size(0), cols = x.size(1);
    const int threads = 256;
    rmsnorm_kernel<<<rows, threads, threads * sizeof(float)>>>(
        x.data_ptr<float>(), w.data_ptr<float>(), out.data_ptr<float>(), cols, 1e-6f);
    return out;
}
"""

CPP_SRC = "torch::Tensor rmsnorm(torch::Tensor x, torch::Tensor w, torch::Tensor out);"

module = load_inline(
    name="rmsnorm_inline",
    cpp_sources=[CPP_SRC],
    cuda_sources=[CUDA_SRC],
    functions=["rmsnorm"],
    verbose=True,
    extra_cuda_cflags=["-O3", "--use_fast_math"],
)


def custom_kernel(data: input_t) -> output_t:
    x, weight, out = data
    return module.rmsnorm(x, weight, out)
