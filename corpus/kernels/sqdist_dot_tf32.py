# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-accumulation-precision
# Pairwise squared Euclidean distances between two float32 point sets, d[i, j] = |a_i - b_j|^2, in the
# expanded form |a_i|^2 + |b_j|^2 - 2 a_i . b_j with the cross term from tl.dot(a, tl.trans(b)), as
# k-means / kNN kernels write it.  The tl.dot is left at Triton's default input_precision, which for
# float32 operands on an sm_80+ GPU (A100, H100) is "tf32": each operand is rounded to 10 mantissa bits
# before the multiply.  The squared norms are summed in full float32, so the cross term's TF32 error
# (up to 2^-11 relative per operand, on cross terms a_i . b_j ~ 256 for points of mean 2 in 64 dims)
# does not cancel with them: the distances (~57..233) come out with absolute errors up to ~0.1,
# relative up to ~1e-3, well beyond float32 rounding.  Rounding the operands to TF32 in torch, as the
# H100 does, gives 7365 of 12288 elements outside the default float32 tolerance (1e-4 + 1e-4*|ref|)
# at 128x96x64 and 2054 of 3500 at 50x70x64, scattered over the whole matrix, no index, tail or
# bounds pattern.  The plain interpreter computes the dot in full float32 and matches (max abs
# ~1.4e-4, inside a tolerance of ~6e-3 at these magnitudes): only a run that rounds the operands as
# the target GPU does shows it.  The reference is float32 and declares no looser tolerance;
# input_precision="ieee" (or "tf32x3") fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BM, BN = 32, 32
SIZES = [dict(m=128, n=96, d=64), dict(m=50, n=70, d=64)]


@triton.jit
def sqdist(a_ptr, b_ptr, out_ptr, M, N, sam, sad, sbn, sbd, som, son,
           D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rd = tl.arange(0, D)
    a = tl.load(a_ptr + rm[:, None] * sam + rd[None, :] * sad, mask=rm[:, None] < M, other=0.0)
    b = tl.load(b_ptr + rn[:, None] * sbn + rd[None, :] * sbd, mask=rn[:, None] < N, other=0.0)
    aa = tl.sum(a * a, axis=1)
    bb = tl.sum(b * b, axis=1)
    ab = tl.dot(a, tl.trans(b))  # default input_precision: TF32 on sm_80+
    d = aa[:, None] + bb[None, :] - 2.0 * ab
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, d, mask=(rm[:, None] < M) & (rn[None, :] < N))


def make_inputs(device: str, seed: int = 0, m: int = 128, n: int = 96, d: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn(m, d, generator=g) + 2.0  # uncentred features (a common offset, as post-activation embeddings)
    b = torch.randn(n, d, generator=g) + 2.0
    return a.to(device), b.to(device)


def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, D = a.shape
    N = b.shape[0]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    sqdist[grid](a, b, out, M, N, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
                 D=D, BM=BM, BN=BN)
    return out


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
