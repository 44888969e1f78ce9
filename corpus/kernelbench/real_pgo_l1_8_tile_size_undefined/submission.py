import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Define the CUDA kernel for matrix multiplication
cuda_code = """
#include <torch/extension.h>

#define TILE_SIZE 16

__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int K, int N) {
    __shared__ float As[TILE_SIZE][TILE_SIZE];
    __shared__ float Bs[TILE_SIZE][TILE_SIZE];

    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    float sum = 0.0f;

    for (int k = 0; k < (K + TILE_SIZE - 1) / TILE_SIZE; ++k) {
        if (row < M && k * TILE_SIZE + threadIdx.x < K) {
            As[threadIdx.y][threadIdx.x] = A[row * K + k * TILE_SIZE + threadIdx.x];
        } else {
            As[threadIdx.y][threadIdx.x] = 0.0f;
        }

        if (col < N && k * TILE_SIZE + threadIdx.y < K) {
            Bs[threadIdx.x][threadIdx.y] = B[(k * TILE_SIZE + threadIdx.y) * N + col];
        } else {
            Bs[threadIdx.x][threadIdx.y] = 0.0f;
        }

        __syncthreads();

        for (int m = 0; m < TILE_SIZE; ++m) {
            sum += As[threadIdx.y][m] * Bs[m][threadIdx.x];
        }

        __syncthreads();
    }

    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("matmul", &matmul_kernel, "MatMul Kernel");
}
"""

# Compile the CUDA kernel
matmul_module = load_inline(name="matmul_module", cpp_sources="", cuda_sources=cuda_code)

class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        K, N = B.shape
        C = torch.zeros((M, N), dtype=torch.float32, device=A.device)
        grid_size = (N // TILE_SIZE + (N % TILE_SIZE != 0), M // TILE_SIZE + (M % TILE_SIZE != 0))
        block_size = (TILE_SIZE, TILE_SIZE, 1)
        matmul_module.matmul(A.contiguous().data_ptr(), B.contiguous().data_ptr(), C.data_ptr(), M, K, N, grid=grid_size, block=block_size)
        return C

def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, N)
    return [A, B]

def get_init_inputs():
    return []
