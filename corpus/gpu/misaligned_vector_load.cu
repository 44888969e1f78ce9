// expected: runtime-assumption / misaligned-input (cudaErrorMisalignedAddress)
// The kernel loads float4 (16-byte) vectors; the caller passes a pointer offset by one float.
#include "check.cuh"
__global__ void sum4(const float* in, float* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        out[i] = v.x + v.y + v.z + v.w;
    }
}
int main() {
    const int n4 = 1024;
    float *in, *out;
    CHECK(cudaMalloc(&in, (4 * n4 + 4) * sizeof(float)));
    CHECK(cudaMalloc(&out, n4 * sizeof(float)));
    CHECK(cudaMemset(in, 0, (4 * n4 + 4) * sizeof(float)));
    sum4<<<n4 / 256, 256>>>(in + 1, out, n4);  // in + 1 is only 4-byte aligned
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
