// expected: kernel-logic / uninitialized-read (initcheck: uninitialized __global__ memory read)
// The input buffer is allocated but never written before the kernel reads it.
#include "check.cuh"
__global__ void copy(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
int main() {
    const int n = 4096;
    float *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(float)));  // never initialised
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    copy<<<n / 256, 256>>>(out, in, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
