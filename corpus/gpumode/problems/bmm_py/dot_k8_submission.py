# expected: verdict=fail, category=kernel-logic, failure_mode=compile-source-error
# Bug: BLOCK_K = 8 (a narrow K tile "to keep shared memory small"). The arithmetic is right
# and Triton's interpreter, which runs tl.dot as a numpy matmul, passes all three tests. But Triton
# rejects a float16 tl.dot whose K dimension is under 16 when it compiles for any NVIDIA GPU
# ("Input shapes should have M >= 1, N >= 1 and K >= 16"): on the harness's GPU no test runs.
# Without a GPU only compiling the launched kernel for a GPU target shows it.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bat = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + bat * sab + rm[:, None] * sam + kk[None, :] * sak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + bat * sbb + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + bat * scb + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    batch, m, k = a.shape
    n = b.shape[2]
    c = torch.empty(batch, m, n, dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(m, 32), triton.cdiv(n, 32), batch)
    bmm_kernel[grid](a, b, c, m, n, k,
                     a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
                     c.stride(0), c.stride(1), c.stride(2),
                     BLOCK_M=32, BLOCK_N=32, BLOCK_K=8)
    return c
