// expected: kernel-logic / device-assert (cudaErrorAssert; the kernel prints the failed assertion)
#include <cassert>
#include "check.cuh"
__global__ void checked(const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(idx[i] < n);  // the index table holds an out-of-range entry
        out[i] = (float)idx[i];
    }
}
int main() {
    const int n = 256;
    int* idx;
    float* out;
    CHECK(cudaMalloc(&idx, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(idx, 0x7f, n * sizeof(int)));  // every entry is 0x7f7f7f7f >= n
    checked<<<1, n>>>(idx, out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
