# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# Per-row cross-entropy loss, loss[r] = -log softmax(x[r])[t[r]], as F.cross_entropy(reduction="none")
# computes it.  The kernel does subtract the row maximum (so exp never overflows), but then takes
# the log of the probability: p = exp(x[t] - max) / sum(exp(x - max)), loss = -log(p), where the
# reference computes log_softmax directly, loss = log(sum(exp(x - max))) - (x[t] - max).  When the
# target's logit lies more than ~104 below the row maximum, exp(x[t] - max) underflows float32 to 0
# and the loss is -log(0) = +Inf where the reference is finite.  The declared sizes give the logits'
# scale: at scale=4 (row maxima ~13) every row matches to a few ULP; at the declared scale=32 (randn *
# 32 over 777 classes, the range of an untempered classifier head; row maxima ~100) 30 of 48 rows are
# +Inf where the reference is 104..201, the other 18 match.  Computed, not unwritten: every row is
# written, the class tail is masked with -inf lanes (exp gives 0), the int64 target is read in
# bounds, no access is out of bounds.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

SIZES = [dict(rows=64, classes=1000, scale=4.0), dict(rows=48, classes=777, scale=32.0)]


@triton.jit
def xent(x_ptr, t_ptr, loss_ptr, C, sxr, sxc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sxr + offs * sxc, mask=offs < C, other=-float("inf")).to(tl.float32)
    t = tl.load(t_ptr + row)
    xt = tl.load(x_ptr + row * sxr + t * sxc).to(tl.float32)
    mx = tl.max(x, axis=0)
    denom = tl.sum(tl.exp(x - mx), axis=0)
    p = tl.exp(xt - mx) / denom
    tl.store(loss_ptr + row, -tl.log(p))  # bug: tl.log(denom) - (xt - mx)


def make_inputs(device: str, seed: int = 0, rows: int = 64, classes: int = 1000, scale: float = 4.0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, classes, generator=g) * scale
    t = torch.randint(0, classes, (rows,), generator=g)
    return x.to(device), t.to(device)


def kernel(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    R, C = x.shape
    loss = torch.empty(R, dtype=torch.float32, device=x.device)
    xent[(R,)](x, t, loss, C, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(C))
    return loss


def reference(x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(x.float(), t, reduction="none")
