// expected: kernel-logic / oob-global-access (cudaErrorIllegalAddress; memcheck names the write)
// An index computed with the wrong stride lands far outside the allocation.
#include "check.cuh"
__global__ void gather(float* out, const float* in, int n, long long stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride];  // stride should be 1
}
int main() {
    const int n = 1 << 20;
    float *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    gather<<<(n + 255) / 256, 256>>>(out, in, n, 1LL << 20);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
