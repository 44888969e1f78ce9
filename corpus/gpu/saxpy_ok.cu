// expected: pass (a correct kernel: bounds-checked, synchronised, checked)
#include "check.cuh"
__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
    const int n = 1000;
    float *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    CHECK(cudaMemset(y, 0, n * sizeof(float)));
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("saxpy ok\n");
    return 0;
}
