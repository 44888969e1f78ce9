import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Define the custom CUDA kernel for optimized matrix multiplication with small K dimension
matmul_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// Optimized kernel for matrix multiplication with large M,N and small K dimensions
// Each thread computes one output element without shared memory
// Uses direct register blocking and vector loads where possible
__global__ void matmul_small_k_kernel(
    const float* __restrict__ A,
    const float* __restrict__ B,
    float* __restrict__ C,
    const int M, const int N, const int K) {
    
    // Calculate global position
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    
    if (row < M && col < N) {
        float sum = 0.0f;
        
        // Load A row directly from global memory
        const float* A_row = A + row * K;
        
        // Process all K elements
        #pragma unroll 8
        for (int k = 0; k < K; ++k) {
            // Load from B column (K*col + k)
            sum += A_row[k] * B[k * N + col];
        }
        
        // Write result
        C[row * N + col] = sum;
    }
}

// Thread coarsening - each thread computes 2x2 output elements to increase arithmetic intensity
__global__ void matmul_small_k_coarse_kernel(
    const float* __restrict__ A,
    const float* __restrict__ B, 
    float* __restrict__ C,
    const int M, const int N, const int K) {
    
    // Calculate base global position
    int row_base = blockIdx.y * (blockDim.y * 2) + threadIdx.y * 2;
    int col_base = blockIdx.x * (blockDim.x * 2) + threadIdx.x * 2;
    
    // Accumulate 2x2 block results
    float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    
    // Only compute if at least partially in bounds
    if (row_base < M && col_base < N) {
        // Process K dimension
        for (int k = 0; k < K; ++k) {
            // Load A values (2 rows)
            float a0 = (row_base < M) ? A[row_base * K + k] : 0.0f;
            float a1 = (row_base + 1 < M) ? A[(row_base + 1) * K + k] : 0.0f;
            
            // Load B values (2 columns)
            float b0 = (col_base < N) ? B[k * N + col_base] : 0.0f;
            float b1 = (col_base + 1 < N) ? B[k * N + col_base + 1] : 0.0f;
            
            // Update 2x2 block
            sums[0] += a0 * b0;  // row, col
            sums[1] += a0 * b1;  // row, col+1
            sums[2] += a1 * b0;  // row+1, col
            sums[3] += a1 * b1;  // row+1, col+1
        }
        
        // Write results if in bounds
        if (row_base < M && col_base < N)
            C[row_base * N + col_base] = sums[0];
        
        if (row_base < M && col_base + 1 < N)
            C[row_base * N + col_base + 1] = sums[1];
        
        if (row_base + 1 < M && col_base < N)
            C[(row_base + 1) * N + col_base] = sums[2];
        
        if (row_base + 1 < M && col_base + 1 < N)
            C[(row_base + 1) * N + col_base + 1] = sums[3];
    }
}

// Kernel that processes multiple elements per thread in the K dimension
__global__ void matmul_small_k_vector_kernel(
    const float* __restrict__ A,
    const float* __restrict__ B,
    float* __restrict__ C,
    const int M, const int N, const int K) {
    
    // Calculate global position
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    
    if (row < M && col < N) {
        float sum = 0.0f;
        
        // Vector registers for better memory bandwidth utilization when K >= 4
        float4 a_vals, b_vals;
        
        const float* A_row = A + row * K;
        
        // Process 4 elements at a time
        int k = 0;
        for (; k <= K-4; k += 4) {
            // Load 4 consecutive elements
            a_vals = *reinterpret_cast<const float4*>(&A_row[k]);
            
            // Load 4 elements from B with stride N
            float b0 = B[k * N + col];
            float b1 = B[(k+1) * N + col];
            float b2 = B[(k+2) * N + col];
            float b3 = B[(k+3) * N + col];
            
            // Dot product of 4 elements
            sum += a_vals.x * b0;
            sum += a_vals.y * b1;
            sum += a_vals.z * b2;
            sum += a_vals.w * b3;
        }
        
        // Handle remaining elements
        for (; k < K; ++k) {
            sum += A_row[k] * B[k * N + col];
        }
        
        // Write result
        C[row * N + col] = sum;
    }
}

torch::Tensor matmul_small_k_cuda(torch::Tensor A, torch::Tensor B) {
    // Get dimensions
    int M = A.size(0);
    int K = A.size(1);
    int N = B.size(1);
    
    // Create output tensor
    auto options = torch::TensorOptions().dtype(A.dtype()).device(A.device());
    auto C = torch::zeros({M, N}, options);
    
    // Block and grid dimensions
    constexpr int BLOCK_SIZE_X = 16;
    constexpr int BLOCK_SIZE_Y = 16;
    dim3 threads(BLOCK_SIZE_X, BLOCK_SIZE_Y);
    
    // Use thread coarsening when matrices are very large
    if (M >= 1024 && N >= 1024) {
        dim3 blocks((N + BLOCK_SIZE_X*2 - 1) / (BLOCK_SIZE_X*2), 
                   (M + BLOCK_SIZE_Y*2 - 1) / (BLOCK_SIZE_Y*2));
        matmul_small_k_coarse_kernel<<<blocks, threads>>>(
            A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    }
    // Use vector loading for large matrices when K is sufficient
    else if (K >= 4) {
        dim3 blocks((N + BLOCK_SIZE_X - 1) / BLOCK_SIZE_X, 
                   (M + BLOCK_SIZE_Y - 1) / BLOCK_SIZE_Y);
        matmul_small_k_vector_kernel<<<blocks, threads>>>(
            A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    }
    // Use simple kernel for small K
    else {
        dim3 blocks((N + BLOCK_SIZE_X - 1) / BLOCK_SIZE_X, 
                   (M + BLOCK_SIZE_Y - 1) / BLOCK_SIZE_Y);
        matmul_small_k_kernel<<<blocks, threads>>>(
            A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    }
    
    return C;
}
"""

matmul_cpp_source = """
torch::Tensor matmul_small_k_cuda(torch::Tensor A, torch::Tensor B);
"""

# Compile the inline CUDA code for matrix multiplication
matmul_optimized = load_inline(
    name="matmul_small_k",
    cpp_sources=matmul_cpp_source,
    cuda_sources=matmul_source,
    functions=["matmul_small_k_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    """
    Optimized model that performs a single matrix multiplication (C = A * B) with a small K dimension
    """
    def __init__(self):
        super(ModelNew, self).__init__()
        self.matmul_op = matmul_optimized
        
    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs optimized matrix multiplication.

        Args:
            A: Input tensor of shape (M, K).
            B: Input tensor of shape (K, N).

        Returns:
            Output tensor of shape (M, N).
        """
        # Ensure tensors are on GPU and contiguous
        A = A.cuda().contiguous() if not A.is_cuda else A.contiguous()
        B = B.cuda().contiguous() if not B.is_cuda else B.contiguous()
        
        # Use our optimized CUDA kernel
        return self.matmul_op.matmul_small_k_cuda(A, B)