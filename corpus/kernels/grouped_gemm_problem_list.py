# kdiag corpus kernel — expected: verdict=pass, category=none
# A grouped GEMM, C_g = A_g @ B_g for a list of G independent problems of different sizes (M_g, N_g, K_g),
# as a mixture-of-experts layer or a batch of LoRA adapters runs them in one launch.  The operands are
# packed back to back in flat buffers (A_g row-major (M_g, K_g), B_g row-major (K_g, N_g)); the problem
# sizes are an int64 (G, 3) tensor, and the output is the C_g packed the same way.  The wrapper builds a
# tile schedule on the host (one row per 32x32 output tile: group, tile row, tile column, and each
# group's M, N, K and buffer offsets), and one program per tile reads its problem from that table.  The
# declared problems are not multiples of the tile (1..100 in each dimension, a 1-row problem and a
# K=5 problem included): the M, N and K tails are masked, the K loop runs to the group's own K, and
# tl.dot accumulates in float32 with input_precision="ieee" (no TF32 rounding).  Inputs of any float
# dtype are widened to float32 in the kernel; the result is float32.  Against the reference (one torch
# matmul per group, concatenated) only the summation order differs: expected variation.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM, BN, BK = 32, 32, 32
SIZES = [dict(groups=5, max_dim=96), dict(groups=3, max_dim=40)]


@triton.jit
def grouped_gemm(a_ptr, b_ptr, c_ptr, sched_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    row = sched_ptr + pid * 8
    tm = tl.load(row + 0)
    tn = tl.load(row + 1)
    M = tl.load(row + 2)
    N = tl.load(row + 3)
    K = tl.load(row + 4)
    a_off = tl.load(row + 5)
    b_off = tl.load(row + 6)
    c_off = tl.load(row + 7)
    rm = tm * BM + tl.arange(0, BM)
    rn = tn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + a_off + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0).to(tl.float32)
        b = tl.load(b_ptr + b_off + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0).to(tl.float32)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + c_off + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _problems(groups: int, max_dim: int, g: torch.Generator) -> torch.Tensor:
    sizes = torch.randint(1, max_dim + 1, (groups, 3), generator=g)
    sizes[0, 0] = 1  # a single-row problem
    if groups > 1:
        sizes[1, 2] = min(5, max_dim)  # a short reduction
    return sizes


def make_inputs(device: str, seed: int = 0, groups: int = 5, max_dim: int = 96) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    sizes = _problems(groups, max_dim, g)
    na = int((sizes[:, 0] * sizes[:, 2]).sum())
    nb = int((sizes[:, 2] * sizes[:, 1]).sum())
    a = torch.randn(na, generator=g)
    b = torch.randn(nb, generator=g)
    return a.to(device), b.to(device), sizes.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
    a = a.contiguous()
    b = b.contiguous()
    rows, a_off, b_off, c_off = [], 0, 0, 0
    for M, N, K in sizes.tolist():
        for tm in range(triton.cdiv(M, BM)):
            for tn in range(triton.cdiv(N, BN)):
                rows.append([tm, tn, M, N, K, a_off, b_off, c_off])
        a_off += M * K
        b_off += K * N
        c_off += M * N
    sched = torch.tensor(rows, dtype=torch.int64, device=a.device)
    c = torch.empty(c_off, dtype=torch.float32, device=a.device)
    grouped_gemm[(len(rows),)](a, b, c, sched, BM=BM, BN=BN, BK=BK)
    return c


def reference(a: torch.Tensor, b: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
    out, ia, ib = [], 0, 0
    for M, N, K in sizes.tolist():
        A = a[ia:ia + M * K].to(torch.float32).reshape(M, K)
        B = b[ib:ib + K * N].to(torch.float32).reshape(K, N)
        out.append((A @ B).reshape(-1))
        ia += M * K
        ib += K * N
    return torch.cat(out)
