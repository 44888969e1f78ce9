import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Define the custom CUDA kernel for lower triangular matrix multiplication
tril_matmul_cuda_source = """
#include <torch/extension.h>
#include <cuda.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void tril_matmul_kernel(
    const scalar_t* __restrict__ A, 
    const scalar_t* __restrict__ B, 
    scalar_t* __restrict__ C, 
    const int N) {
    
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    
    // Only compute for elements in the lower triangular part
    if (row < N && col < N && row >= col) {
        scalar_t sum = 0.0;
        
        // For lower triangular matrices, we sum over k where:
        // k <= row (since A is lower triangular) and
        // k >= col (since B is lower triangular)
        // So k ranges from col to row
        for (int k = col; k <= row; k++) {
            int a_idx = row * N + k;
            int b_idx = k * N + col;
            
            // Since A is lower triangular, A[row,k] is non-zero when row >= k
            // Since B is lower triangular, B[k,col] is non-zero when k >= col
            // Both conditions are satisfied by our loop bounds
            sum += A[a_idx] * B[b_idx];
        }
        
        C[row * N + col] = sum;
    }
}

torch::Tensor tril_matmul_cuda(torch::Tensor A, torch::Tensor B) {
    // Check input dimensions
    TORCH_CHECK(A.dim() == 2, "Matrix A must be 2-dimensional");
    TORCH_CHECK(B.dim() == 2, "Matrix B must be 2-dimensional");
    TORCH_CHECK(A.size(0) == A.size(1), "Matrix A must be square");
    TORCH_CHECK(B.size(0) == B.size(1), "Matrix B must be square");
    TORCH_CHECK(A.size(1) == B.size(0), "Matrix dimensions must match for multiplication");
    
    const int N = A.size(0);
    auto options = torch::TensorOptions()
                   .dtype(A.dtype())
                   .device(A.device());
    auto C = torch::zeros({N, N}, options);
    
    // Define block and grid dimensions
    const int block_size = 16;
    const dim3 threads(block_size, block_size);
    const dim3 blocks((N + threads.x - 1) / threads.x, (N + threads.y - 1) / threads.y);
    
    AT_DISPATCH_FLOATING_TYPES(A.scalar_type(), "tril_matmul_kernel", ([&] {
        tril_matmul_kernel<scalar_t><<<blocks, threads>>>(
            A.data_ptr<scalar_t>(),
            B.data_ptr<scalar_t>(),
            C.data_ptr<scalar_t>(),
            N
        );
    }));
    
    // Make sure CUDA kernel finishes before returning
    cudaDeviceSynchronize();
    
    return C;
}
"""

tril_matmul_cpp_source = """
torch::Tensor tril_matmul_cuda(torch::Tensor A, torch::Tensor B);
"""

# Compile the inline CUDA code for lower triangular matrix multiplication
tril_matmul = load_inline(
    name="tril_matmul",
    cpp_sources=tril_matmul_cpp_source,
    cuda_sources=tril_matmul_cuda_source,
    functions=["tril_matmul_cuda"]
)

class ModelNew(nn.Module):
    """
    Optimized model that performs a matrix multiplication (C = A * B) where A and B are lower triangular matrices.
    Uses a custom CUDA kernel to efficiently compute only the lower triangular part of the result.
    """
    def __init__(self):
        super(ModelNew, self).__init__()
        self.tril_matmul = tril_matmul
    
    def forward(self, A, B):
        """
        Performs efficient matrix multiplication of lower triangular matrices A and B.

        Args:
            A (torch.Tensor): Lower triangular matrix of shape (N, N).
            B (torch.Tensor): Lower triangular matrix of shape (N, N).

        Returns:
            torch.Tensor: The result of matrix multiplication C of shape (N, N).
        """
        return self.tril_matmul.tril_matmul_cuda(A, B)