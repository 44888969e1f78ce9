#!POPCORN leaderboard vectoradd
# kdiag corpus (GPU MODE format, written for kdiag): vectoradd through a CuPy RawKernel whose options name the
# Blackwell target (-arch=sm_100a), with an instruction only that target has (tcgen05's fence). No bug. Compiled for
# kdiag's default target (sm_90) it would fail in ptxas; it is compiled for the target its own options name.
# Without a GPU: no-result, compiled for sm_100a (sm100a_submission.py is the load_inline form of the same case).
import cupy as cp
import torch
from task import input_t, output_t

SRC = r"""
#include <cuda_fp16.h>

extern "C" __global__ void add_kernel(const __half* a, const __half* b, __half* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("tcgen05.fence::before_thread_sync;");
    if (i < n) c[i] = __hadd(a[i], b[i]);
}
"""

add_kernel = cp.RawKernel(SRC, "add_kernel", options=("-arch=sm_100a",))


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    c = torch.empty_like(a)
    n = a.numel()
    add_kernel(((n + 255) // 256,), (256,), (cp.from_dlpack(a), cp.from_dlpack(b), cp.from_dlpack(c), cp.int32(n)))
    return c
