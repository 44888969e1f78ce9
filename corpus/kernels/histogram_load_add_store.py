# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=race-global
# A weighted histogram (torch.bincount with weights): each program loads a block of bin indices and
# weights and updates totals[bin] with a plain load, add, store instead of tl.atomic_add.  Every lane
# that hits the same bin reads the same old total and writes its own sum: all but one of the updates
# are lost.  On a GPU, programs running at the same time lose each other's updates too, and the
# totals vary from run to run.  Under the interpreter the programs run one after another, so only the
# collisions inside one block are lost, deterministically: every bin ends up far below its true total
# (each block adds at most one weight per bin).  The output is zeroed and every access is masked and in
# bounds; no element is unwritten.  tl.atomic_add(totals_ptr + idx, w, mask=m) is the fix.
from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK = 128
BINS = 32
SIZES = [dict(n=4096), dict(n=1500)]


@triton.jit
def weighted_hist(idx_ptr, w_ptr, totals_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    old = tl.load(totals_ptr + idx, mask=m, other=0.0)  # bug: a read-modify-write that is not atomic
    tl.store(totals_ptr + idx, old + w, mask=m)


def make_inputs(device: str, seed: int = 0, n: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    idx = torch.randint(0, BINS, (n,), generator=g, dtype=torch.int32)
    w = torch.rand(n, generator=g) + 0.5
    return idx.to(device), w.to(device)


def kernel(idx: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    n = idx.numel()
    totals = torch.zeros(BINS, dtype=torch.float32, device=w.device)
    weighted_hist[(triton.cdiv(n, BLOCK),)](idx, w, totals, n, BLOCK=BLOCK)
    return totals


def reference(idx: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.bincount(idx.long(), weights=w.float(), minlength=BINS).to(torch.float32)
