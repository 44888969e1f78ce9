import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Define the custom CUDA kernel for tiled matrix multiplication
# This implementation uses shared memory tiling to optimize memory bandwidth.
# Tiling reduces the number of global memory accesses by a factor of the tile size.
matmul_cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void matmul_kernel(const float* A, const float* B, float* C, int N) {
    // Shared memory tiles for matrix A and B
    // 32x32 tiles are chosen to match common warp/block sizing (1024 threads total)
    __shared__ float tileA[32][32];
    __shared__ float tileB[32][32];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * 32 + ty;
    int col = blockIdx.x * 32 + tx;

    float sum = 0.0f;

    // Loop over the tiles required to compute the result
    for (int i = 0; i < (N + 31) / 32; ++i) {
        // Load tile from A into shared memory with boundary check
        if (row < N && (i * 32 + tx) < N) {
            tileA[ty][tx] = A[row * N + i * 32 + tx];
        } else {
            tileA[ty][tx] = 0.0f;
        }

        // Load tile from B into shared memory with boundary check
        if (col < N && (i * 32 + ty) < N) {
            tileB[ty][tx] = B[(i * 32 + ty) * N + col];
        } else {
            tileB[ty][tx] = 0.0f;
        }

        // Synchronize threads to ensure tiles are fully loaded
        __syncthreads();

        // Compute dot product of the tiles
        #pragma unroll
        for (int k = 0; k < 32; ++k) {
            sum += tileA[ty][k] * tileB[k][tx];
        }

        // Synchronize threads before loading the next tile
        __syncthreads();
    }

    // Store the computed value into the result matrix
    if (row < N && col < N) {
        C[row * N + col] = sum;
    }
}

torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {
    // Check that inputs are on the same device and are square
    const int N = A.size(0);
    
    // Create output tensor on the same device/dtype as input
    auto options = torch::TensorOptions().device(A.device()).dtype(A.dtype());
    auto C = torch::empty({N, N}, options);

    // Grid and Block dimensions
    dim3 threadsPerBlock(32, 32);
    dim3 numBlocks((N + 31) / 32, (N + 31) / 32);

    matmul_kernel<<<numBlocks, threadsPerBlock>>>(
        A.data_ptr<float>(), 
        B.data_ptr<float>(), 
        C.data_ptr<float>(), 
        N
    );

    return C;
}
"""

matmul_cpp_source = "torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B);"

# Compile the inline CUDA code
custom_matmul = load_inline(
    name="custom_matmul",
    cpp_sources=matmul_cpp_source,
    cuda_sources=matmul_cuda_source,
    functions=["matmul_cuda"],
    verbose=True,
)

class ModelNew(nn.Module):
    """
    Optimized model using a custom CUDA tiled matrix multiplication kernel.
    """
    def __init__(self) -> None:
        super(ModelNew, self).__init__()
        self.matmul_cuda = custom_matmul.matmul_cuda

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs the matrix multiplication using the custom CUDA kernel.
        """
        # Ensure inputs are on the correct device if they are not already
        if not A.is_cuda:
            A = A.cuda()
        if not B.is_cuda:
            B = B.cuda()
            
        return self.matmul_cuda(A, B)

N = 2048 * 2

def get_inputs():
    # Return CUDA tensors to leverage GPU acceleration
    A = torch.rand(N, N).cuda()
    B = torch.rand(N, N).cuda()
    return [A, B]

def get_init_inputs():
    return []