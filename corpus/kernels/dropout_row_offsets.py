# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=wrong-indexing
# A fused bias + dropout, out = dropout(x + bias, p=0.25) with a fixed seed, one program per row: each
# element's keep decision is tl.rand(seed, offset) > p, kept values scaled by 1/(1-p).  The random
# offset must be the element's global index (row * cols + col) so that every element draws its own
# number; the kernel passes the column index only, so every row draws the same stream and drops the
# same columns.  The reference reproduces Triton's generator in plain torch (Philox-4x32, 10 rounds,
# counter = the global index, key = the seed; the same uint32-to-[0, 1) conversion), so it gives each
# element the number tl.rand gives it for its global index: row 0 is exactly right (its global and
# column indices coincide), and every later row reuses row 0's keep mask: about 2p(1-p) = 37% of
# its elements differ (a kept value where the reference drops it, or 0 where it keeps one): 6000 of
# 16384 at 64x256, 1691 of 4500 at 30x150, first bad index in row 1; the zeros of the output form
# the same column pattern in every row.  Dropped and kept values are otherwise exact, nothing is out of
# bounds (column tail masked at cols=150), every element written; the run is deterministic (fixed
# seed), so repeats agree: only the comparison with the reference's stream shows it (with the global
# index as the offset the kernel matches the reference exactly).  On a GPU the rows' masks are as
# perfectly correlated as here.
from __future__ import annotations

import torch
import triton
import triton.language as tl

P = 0.25
SEED = 1234
BLOCK = 256
SIZES = [dict(rows=64, cols=256), dict(rows=30, cols=150)]


@triton.jit
def bias_dropout(x_ptr, b_ptr, out_ptr, cols, sxr, sxc, sor, soc, p, scale, seed, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < cols
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=m, other=0.0)
    b = tl.load(b_ptr + c, mask=m, other=0.0)
    r = tl.rand(seed, c)  # should be row * cols + c: every row draws the same numbers
    keep = r > p
    tl.store(out_ptr + row * sor + c * soc, tl.where(keep, (x + b) * scale, 0.0), mask=m)


def make_inputs(device: str, seed: int = 0, rows: int = 64, cols: int = 256) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, cols, generator=g)
    b = torch.randn(cols, generator=g) * 0.1
    return x.to(device), b.to(device)


def kernel(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    assert cols <= BLOCK
    out = torch.empty((rows, cols), dtype=x.dtype, device=x.device)
    bias_dropout[(rows,)](x, b.contiguous(), out, cols, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                          P, 1.0 / (1.0 - P), SEED, BLOCK=BLOCK)
    return out


_M32 = 0xFFFFFFFF


def _mul32(a: torch.Tensor, b: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(high, low) 32-bit halves of the 64-bit product of uint32 values held in int64 tensors."""
    ah, al = a >> 16, a & 0xFFFF
    bh, bl = b >> 16, b & 0xFFFF
    low = (ah * bl + al * bh) * 65536 + al * bl
    return (ah * bh + (low >> 32)) & _M32, low & _M32


def _philox_rand(seed: int, offsets: torch.Tensor) -> torch.Tensor:
    """tl.rand(seed, offsets) for int32 offsets: Philox-4x32-10, counter (offset, 0, 0, 0), key (seed lo, hi)."""
    c0 = offsets.to(torch.int64) & _M32
    c1 = torch.zeros_like(c0)
    c2 = torch.zeros_like(c0)
    c3 = torch.zeros_like(c0)
    k0, k1 = seed & _M32, (seed >> 32) & _M32
    for _ in range(10):
        hi_b, lo_b = _mul32(c2, 0xCD9E8D57)
        hi_a, lo_a = _mul32(c0, 0xD2511F53)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0, k1 = (k0 + 0x9E3779B9) & _M32, (k1 + 0xBB67AE85) & _M32
    i = torch.where(c0 >= 2**31, c0 - 2**32, c0)  # bitcast to int32
    i = torch.where(i < 0, -i - 1, i)
    return i.to(torch.int32).to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32)


def reference(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    offs = torch.arange(rows * cols, device=x.device).reshape(rows, cols)
    keep = _philox_rand(SEED, offs) > P
    return torch.where(keep, (x + b) * (1.0 / (1.0 - P)), torch.zeros((), dtype=x.dtype, device=x.device))
