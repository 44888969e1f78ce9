# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=oob-global-read
# Per-token cross-entropy, loss[i] = logsumexp(x[i]) - x[i, t[i]], as
# F.cross_entropy(x, t, reduction="none", ignore_index=-100) computes it: a token whose target is -100
# (padding) must get loss 0 and its target must never be used as an index.  The kernel computes the
# stable logsumexp of each row correctly (max subtracted, class tail masked with -inf) but then loads
# x[i, t[i]] for every row, ignored ones included: for t = -100 it reads 100 elements BEFORE the start
# of row i, and stores a nonzero loss there.  The declared batches are left-padded sequences (as
# batched generation pads them) flattened to tokens: the first 1..5 tokens of each sequence are
# padding, so token 0 is always ignored and its load lands 100 elements before the start of x (an
# out-of-bounds read at every declared size; NaN with a NaN guard region before x), while every other
# ignored token reads the tail of the previous row (x[i-1, C-100], inside x) and gets a finite, wrong
# loss of a few units where the reference has 0.0 (13 of 64 losses wrong at 4x16, 10 of 30 at 3x10:
# exactly the ignored tokens).  The non-ignored tokens are right (a few ULP).
# The plain interpreter checks no bounds and reads whatever precedes x for token 0.  Stores are in
# bounds, every element is written.  tl.where(t == -100, 0.0, ...) with the target load masked by
# t != -100 (or t >= 0) fixes it.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

IGNORE = -100
SIZES = [dict(batch=4, seq=16, classes=1000), dict(batch=3, seq=10, classes=333)]


@triton.jit
def xent_rows(x_ptr, t_ptr, loss_ptr, C, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    cm = c < C
    x = tl.load(x_ptr + row * sxr + c * sxc, mask=cm, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    t = tl.load(t_ptr + row)
    xt = tl.load(x_ptr + row * sxr + t * sxc).to(tl.float32)  # t may be -100 (ignore_index)
    tl.store(loss_ptr + row, lse - xt)


def make_inputs(device: str, seed: int = 0, batch: int = 4, seq: int = 16, classes: int = 1000) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(batch * seq, classes, generator=g) * 2.0
    t = torch.randint(0, classes, (batch, seq), generator=g)
    pad = torch.randint(1, 6, (batch,), generator=g)
    for b in range(batch):
        t[b, : int(pad[b])] = IGNORE  # left padding
    return x.to(device), t.reshape(-1).to(device)


def kernel(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    n, C = x.shape
    loss = torch.empty(n, dtype=torch.float32, device=x.device)
    xent_rows[(n,)](x, t, loss, C, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(C))
    return loss


def reference(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(x.to(torch.float32), t, reduction="none", ignore_index=IGNORE)
