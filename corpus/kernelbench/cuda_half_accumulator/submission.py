# kdiag corpus (KernelBench format, written for kdiag) — expected: verdict=no-result (could not run here),
# category=environment, with the static check's candidate in what was checked.  A load_inline CUDA
# matrix-vector product whose per-thread running sum is a __half, updated with __hadd inside the loop
# over K: on a GPU every output would be off by a small relative amount that grows with K.  Without a
# GPU kdiag compiles the source (nvcc -cubin -Xptxas -v) and reads the accumulator's type from it; a
# narrow accumulator is only a candidate (it may be deliberate), so the verdict stays no-result.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <cuda_fp16.h>

__global__ void matvec_kernel(const float* A, const float* B, float* C, int M, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        __half acc = __float2half(0.0f);
        for (int k = 0; k < K; ++k) {
            acc = __hadd(acc, __float2half(A[row * K + k] * B[k]));
        }
        C[row] = __half2float(acc);
    }
}

torch::Tensor matvec(torch::Tensor A, torch::Tensor B) {
    int M = A.size(0), K = A.size(1);
    auto C = torch::empty({M, 1}, A.options());
    int threads = 128;
    matvec_kernel<<<(M + threads - 1) / threads, threads>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, K);
    return C;
}
"""

cpp_source = "torch::Tensor matvec(torch::Tensor A, torch::Tensor B);"

matvec = load_inline(
    name="matvec_half_acc",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["matvec"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return matvec.matvec(A.contiguous(), B.contiguous())
