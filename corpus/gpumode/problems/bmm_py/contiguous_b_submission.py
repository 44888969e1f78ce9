# expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# Bug: b is addressed as if it were a contiguous (batch, k, n) tensor (offset bat*K*N + k*N + n), but
# generate_input gives it K-major, the transpose of a contiguous (batch, n, k) tensor (strides
# (n*k, 1, k)). The kernel reads the right batch's memory in the wrong order: it multiplies a by
# b_nk reshaped to (k, n) instead of b_nk transposed, so nearly every output element of every test is
# wrong (no crash, nothing read out of bounds: the offsets stay inside each batch's n*k elements).
# Without a GPU the interpreter gives the same values; a contiguous b would pass.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
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
        a = tl.load(a_ptr + bat * M * K + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + bat * K * N + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + bat * M * N + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def custom_kernel(data: input_t) -> output_t:
    a, b = data
    batch, m, k = a.shape
    n = b.shape[2]
    c = torch.empty(batch, m, n, dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(m, 32), triton.cdiv(n, 32), batch)
    bmm_kernel[grid](a, b, c, m, n, k, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return c
