import torch
import torch.nn as nn
from torch.utils.cpp_extension import load

# Define the CUDA kernel for matrix multiplication
cuda_code = """
#include <torch/extension.h>

__global__ void matmul_kernel(float* A, float* B, float* C, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < N && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < N; ++k) {
            sum += A[row * N + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}

std::vector<at::Tensor> matmul_forward(const at::Tensor& A, const at::Tensor& B) {
    int N = A.size(0);
    auto options = A.options();
    auto C = at::empty_like(A);

    dim3 threads(16, 16);
    dim3 blocks((N + threads.x - 1) / threads.x, (N + threads.y - 1) / threads.y);

    matmul_kernel<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), N);

    return {C};
}
"""

# Save the CUDA code to a file named 'matmul_kernel.cu'
with open('matmul_kernel.cu', 'w') as f:
    f.write(cuda_code)

# Load the CUDA extension
matmul_ext = load(name="matmul_ext", sources=["matmul_kernel.cu"], verbose=True)

class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return matmul_ext.matmul_forward(A, B)[0]

def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]

def get_init_inputs():
    return []
