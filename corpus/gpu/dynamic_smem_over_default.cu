// expected: runtime-assumption / smem-exceeds-device-limit (a launch asking for 100 KiB of dynamic
// shared memory without cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize))
#include "check.cuh"
extern __shared__ float tile[];
__global__ void stage(const float* in, float* out) {
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}
int main() {
    float *in, *out;
    CHECK(cudaMalloc(&in, 256 * sizeof(float)));
    CHECK(cudaMalloc(&out, 256 * sizeof(float)));
    CHECK(cudaMemset(in, 0, 256 * sizeof(float)));
    stage<<<1, 256, 100 * 1024>>>(in, out);  // over the 48 KiB default without the opt-in
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
