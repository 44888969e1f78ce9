// expected: kernel-logic / race-shared-memory (racecheck: write/read hazard on __shared__)
// A block reduction without the __syncthreads() between the tree steps.
#include "check.cuh"
__global__ void block_sum(const float* in, float* out) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        // missing: __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
int main() {
    const int blocks = 64, n = blocks * 256;
    float *in, *out;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, blocks * sizeof(float)));
    CHECK(cudaMemset(in, 0, n * sizeof(float)));
    block_sum<<<blocks, 256>>>(in, out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
