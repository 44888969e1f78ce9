import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Define the custom CUDA kernel for Matrix-Vector Multiplication (GEMV)
# The kernel assigns one CUDA block to compute one element of the output vector (one row of the matrix).
# This approach efficiently handles the large K dimension (reduction dimension) using block-level reduction.
gemv_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// Warp Reduction Helper
// Sums values within a warp (32 threads) using shuffle instructions
__inline__ __device__ float warpReduceSum(float val) {
    for (int offset = 32 / 2; offset > 0; offset /= 2) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    return val;
}

// Block Reduction Helper
// Sums values across the entire thread block
__inline__ __device__ float blockReduceSum(float val) {
    // Shared memory to store partial sums from each warp
    // Max threads per block is usually 1024, so we need at most 32 entries (1024/32)
    static __shared__ float shared[32];
    
    int lane = threadIdx.x % 32;
    int wid = threadIdx.x / 32;

    // 1. Perform reduction within each warp
    val = warpReduceSum(val);

    // 2. The first thread of each warp writes the result to shared memory
    if (lane == 0) {
        shared[wid] = val;
    }
    __syncthreads();

    // 3. The first warp loads the partial sums from shared memory
    // Only threads 0 to (num_warps - 1) need to participate
    val = (threadIdx.x < blockDim.x / 32) ? shared[threadIdx.x] : 0.0f;

    // 4. Perform final reduction within the first warp
    if (wid == 0) {
        val = warpReduceSum(val);
    }

    return val;
}

__global__ void gemv_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int K) {
    // Each block computes one row of the output (one element of C)
    int row = blockIdx.x;
    
    if (row < M) {
        float sum = 0.0f;
        
        // Grid Stride Loop over K dimension
        // Threads in the block process the row in parallel
        // Access pattern is coalesced: Thread i reads A[row, i], A[row, i + blockDim], etc.
        for (int k = threadIdx.x; k < K; k += blockDim.x) {
            // A is row-major (M, K), B is (K, 1)
            sum += A[row * K + k] * B[k];
        }
        
        // Reduce partial sums from all threads in the block to a single value
        sum = blockReduceSum(sum);
        
        // The first thread writes the final result for this row to global memory
        if (threadIdx.x == 0) {
            C[row] = sum;
        }
    }
}

torch::Tensor gemv_cuda(torch::Tensor A, torch::Tensor B) {
    // Ensure inputs are contiguous in memory for correct pointer arithmetic
    A = A.contiguous();
    B = B.contiguous();

    TORCH_CHECK(A.is_cuda, "A must be a CUDA tensor");
    TORCH_CHECK(B.is_cuda, "B must be a CUDA tensor");
    TORCH_CHECK(A.dim() == 2, "A must be 2D");
    TORCH_CHECK(B.dim() == 2, "B must be 2D");
    TORCH_CHECK(A.size(1) == B.size(0), "Dimension mismatch: A.shape[1] must equal B.shape[0]");
    
    int M = A.size(0);
    int K = A.size(1);
    
    auto C = torch::zeros({M, 1}, A.options());
    
    // Launch Configuration:
    // One block per output row (M blocks total).
    // 256 threads per block allows for high occupancy and efficient reduction.
    const int threads = 256;
    const int blocks = M;
    
    gemv_kernel<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, K);
    
    return C;
}
"""

gemv_cpp_source = "torch::Tensor gemv_cuda(torch::Tensor A, torch::Tensor B);"

# Compile and load the custom kernel
gemv_module = load_inline(
    name='gemv_custom',
    cpp_sources=gemv_cpp_source,
    cuda_sources=gemv_source,
    functions=['gemv_cuda'],
    verbose=False,
    extra_cuda_cflags=['--use_fast_math']
)

class ModelNew(nn.Module):
    """
    Optimized model using custom CUDA GEMV kernel.
    """
    def __init__(self):
        super(ModelNew, self).__init__()
        self.gemv_module = gemv_module
    
    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Performs matrix-vector multiplication using the custom CUDA operator.
        """
        return self.gemv_module.gemv_cuda(A, B)