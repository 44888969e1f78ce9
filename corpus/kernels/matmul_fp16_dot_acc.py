# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# A tiled matmul of float16 inputs into a float32 output, but the tile accumulator is float16 and each
# tl.dot is asked for a float16 result (out_dtype=tl.float16): every K-step's partial product and the
# running sum are rounded to float16 (11 significant bits).  The inputs are positive, so the sums grow
# with K and so does the spacing of float16 around them: at K=256 the median relative error is ~2.6e-4
# (max ~1.4e-3; ~80% of the elements outside the float32 tolerance), at K=2048 ~6e-4 (max ~3e-3; ~90%),
# spread over the whole output.  No index is wrong and nothing is out of bounds: a float32 accumulator
# (tl.zeros(..., tl.float32) and the default out_dtype) fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32
SIZES = [dict(m=32, n=64, k=256), dict(m=32, n=64, k=2048)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)  # bug: float16 accumulator
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float32),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 32, n: int = 64, k: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.rand(m, k, generator=g).to(torch.float16).to(device)
    b = torch.rand(k, n, generator=g).to(torch.float16).to(device)
    return a, b


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.float() @ b.float()
