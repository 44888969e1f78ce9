# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# Windowed overlap-add (the last step of an inverse STFT or a transposed 1-D convolution):
# out[f * hop + j] += w[j] * frames[f, j] for frames of length L = 2 * hop, so every output sample
# but the first and last hop receives two frames.  One program per frame; the output is zeroed, but
# each program writes its whole frame with a plain tl.store instead of tl.atomic_add: programs f and
# f+1 write the same hop samples (overlapping tiles), and whichever store lands last wins, so no
# overlapped sample is ever the sum.  On a GPU the programs run concurrently and which frame wins an
# overlapped sample varies from run to run.  The interpreter runs the programs in order, so the
# later frame always wins, deterministically: each segment [s * hop, (s + 1) * hop), 1 <= s < F,
# holds only frame s's first half and misses frame s-1's second half, while the first hop (one frame only) and the last hop are right.
# 4004 of 4160 samples wrong at 64 frames of 128 (hop 64), 1385 of 1488 at 30 frames of 96 (hop 48,
# masked frame tail); the few right ones in between are where the lost window value is near 0.  The
# first wrong sample is index hop.  All accesses are masked and in bounds, every sample is written,
# the output is finite; with tl.atomic_add the same kernel matches exactly.
from __future__ import annotations

import torch
import triton
import triton.language as tl

SIZES = [dict(frames=64, hop=64), dict(frames=30, hop=48)]


@triton.jit
def overlap_add(fr_ptr, w_ptr, out_ptr, L, hop, sff, sfj, BLOCK: tl.constexpr):
    f = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < L
    x = tl.load(fr_ptr + f * sff + offs * sfj, mask=m, other=0.0)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + f * hop + offs, x * w, mask=m)  # bug: tl.atomic_add (frames overlap by hop)


def make_inputs(device: str, seed: int = 0, frames: int = 64, hop: int = 64):
    g = torch.Generator(device="cpu").manual_seed(seed)
    L = 2 * hop
    fr = torch.randn(frames, L, generator=g)
    w = torch.hann_window(L, periodic=True)
    return fr.to(device), w.to(device)


def kernel(fr: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    F, L = fr.shape
    hop = L // 2
    out = torch.zeros((F - 1) * hop + L, dtype=fr.dtype, device=fr.device)
    overlap_add[(F,)](fr, w, out, L, hop, fr.stride(0), fr.stride(1), BLOCK=triton.next_power_of_2(L))
    return out


def reference(fr: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    F, L = fr.shape
    hop = L // 2
    out = torch.zeros((F - 1) * hop + L, dtype=fr.dtype, device=fr.device)
    for f in range(F):
        out[f * hop: f * hop + L] += fr[f] * w
    return out
