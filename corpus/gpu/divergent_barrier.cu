// expected: kernel-logic / barrier-divergence-deadlock (synccheck: divergent threads in block)
#include "check.cuh"
__global__ void half_barrier(float* out) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = (float)t;
    if (t < 64) {
        __syncthreads();  // only half of the block reaches this barrier
    }
    out[t] = s[127 - t];
}
int main() {
    float* out;
    CHECK(cudaMalloc(&out, 128 * sizeof(float)));
    half_barrier<<<1, 128>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
