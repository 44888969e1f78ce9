# expected: verdict=assumption, category=runtime-assumption, failure_mode=shape-not-multiple-of-block
# Bug: the k loop loads its a and b tiles with masks on m and n only, not on k ("k is always a
# multiple of 32": it is in every test, 96, 160 and 64, and in the benchmark, 1024). The task allows
# any k >= 1. When k % 32 != 0 the last k tile reads up to 31 columns past the end of each row of a
# (the next row's values, and past the end of the tensor for the last row) and the matching entries of
# b, and adds their products: the result is wrong nearly everywhere. Without a GPU the tests pass under
# the interpreter; a run at another k (say 100) fails, and its last row of a reads out of bounds,
# which the interpreter does not check (garbage, or a crash).
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
                    mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + bat * sbb + kk[:, None] * sbk + rn[None, :] * sbn,
                    mask=rn[None, :] < N, other=0.0)
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
                     BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return c
