// expected: runtime-assumption / grid-dim-limit (cudaErrorInvalidConfiguration: 2048 threads per block)
#include "check.cuh"
__global__ void fill(float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }
int main() {
    float* out;
    CHECK(cudaMalloc(&out, 2048 * sizeof(float)));
    fill<<<1, 2048>>>(out);  // every GPU allows at most 1024 threads per block
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
