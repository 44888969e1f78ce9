# kdiag corpus kernel — expected: verdict=pass, category=none
# A fused softmax-cross-entropy forward over a large vocabulary, loss[r] = logsumexp(x[r]) - x[r, t[r]],
# returning the per-row loss and the per-row logsumexp (the value a fused backward reuses), as
# F.cross_entropy(x, t, reduction="none") and torch.logsumexp(x, 1) compute them.  One program per row
# walks the vocabulary in chunks of 256 with a running maximum and a running sum of exponentials that is
# rescaled by exp(m_old - m_new) whenever the maximum rises; the target logit is picked up inside the same
# loop (tl.where(col == t, x, 0) summed), so the row is read once.  The vocabulary is not a multiple of the
# chunk (1000, 5003): the tail lanes load -inf, which never raises the maximum and adds exp(-inf) = 0 to the
# sum, and never equal the target column.  Logits are scaled up to ~20 (a confident model), so a version
# without the maximum would overflow; this one stays finite.  The strides of x and t are honoured and the
# arithmetic is float32 for any input dtype.  Against the reference only the order of the additions
# differs: a few ULP, within the default float32 tolerance.
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 256
SIZES = [dict(rows=32, vocab=1000), dict(rows=16, vocab=5003)]


@triton.jit
def xent_fwd(x_ptr, t_ptr, loss_ptr, lse_ptr, V, sxr, sxc, st, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    t = tl.load(t_ptr + row * st)
    m = -float("inf")
    s = 0.0
    xt = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, V, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * sxr + c * sxc, mask=c < V, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
        xt += tl.where(c == t, x, 0.0)
    lse = m + tl.log(s)
    tl.store(lse_ptr + row, lse)
    tl.store(loss_ptr + row, lse - tl.sum(xt, axis=0))


def make_inputs(device: str, seed: int = 0, rows: int = 32, vocab: int = 1000) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(rows, vocab, generator=g) * 6.0
    t = torch.randint(0, vocab, (rows,), generator=g)
    x[0, t[0]] += 20.0  # a confident row
    t[-1] = vocab - 1  # a target in the last (partial) chunk
    return x.to(device), t.to(device)


def kernel(x: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    rows, vocab = x.shape
    loss = torch.empty(rows, dtype=torch.float32, device=x.device)
    lse = torch.empty(rows, dtype=torch.float32, device=x.device)
    xent_fwd[(rows,)](x, t, loss, lse, vocab, x.stride(0), x.stride(1), t.stride(0),
                          BLOCK=BLOCK)
    return loss, lse


def reference(x: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    xf = x.to(torch.float32)
    return F.cross_entropy(xf, t, reduction="none"), torch.logsumexp(xf, dim=1)
