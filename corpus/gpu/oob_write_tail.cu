// expected: kernel-logic / missing-mask-tail (memcheck: invalid __global__ write just past the end)
// The grid is rounded up to the block and the kernel has no `if (i < n)`: the last block writes
// past the allocation. The plain run usually survives (the overrun stays inside the allocator's
// page), which is why the ladder goes on to compute-sanitizer memcheck.
#include "check.cuh"
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i];  // missing: if (i < n)
}
int main() {
    const int n = 1000, block = 256, grid = (n + block - 1) / block;
    float *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(in, 0, n * sizeof(float)));
    scale<<<grid, block>>>(out, in, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
