# kdiag corpus kernel — expected: verdict=fail, category=kernel-logic, failure_mode=numerical-instability
# A fused Adam step (no weight decay), out of place: m' = b1*m + (1-b1)*g, v' = b2*v + (1-b2)*g^2,
# p' = p - lr * (m'/(1-b1^t)) / (sqrt(v'/(1-b2^t)) + eps), returning (p', m', v').  As in torch.optim.Adam
# the state's step counter counts the steps already taken and is incremented BEFORE the bias
# corrections (t = step + 1).  The wrapper computes the corrections from the stored step as it is
# (t = step): on the first update (step = 0) both corrections are 1 - b^0 = 0, m'/0 and v'/0 are
# +-Inf, Inf/Inf is NaN, and every parameter comes out NaN (4096 of 4096 at the declared step=0),
# where the reference is finite; m' and v' are right.  At the declared step=9 the corrections are those
# of step 9 instead of 10: the update is off by about 1%, max abs 4.3e-5, inside the float32
# tolerance, so that size passes.  The NaN is computed from in-bounds values (no out-of-bounds access,
# every element written).  Using step + 1 fixes it.
from __future__ import annotations

import torch
import triton
import triton.language as tl

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8
BLOCK = 256
SIZES = [dict(n=4096, step=0), dict(n=1000, step=9)]


@triton.jit
def adam_step(p_ptr, g_ptr, m_ptr, v_ptr, po_ptr, mo_ptr, vo_ptr, n, lr, b1, b2, eps, bc1, bc2,
              BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    msk = offs < n
    p = tl.load(p_ptr + offs, mask=msk, other=0.0)
    g = tl.load(g_ptr + offs, mask=msk, other=0.0)
    m = tl.load(m_ptr + offs, mask=msk, other=0.0)
    v = tl.load(v_ptr + offs, mask=msk, other=0.0)
    m = b1 * m + (1.0 - b1) * g
    v = b2 * v + (1.0 - b2) * g * g
    p = p - lr * (m / bc1) / (tl.sqrt(v / bc2) + eps)
    tl.store(po_ptr + offs, p, mask=msk)
    tl.store(mo_ptr + offs, m, mask=msk)
    tl.store(vo_ptr + offs, v, mask=msk)


def make_inputs(device: str, seed: int = 0, n: int = 4096, step: int = 0) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    p = torch.randn(n, generator=gen)
    g = torch.randn(n, generator=gen) * 0.1
    if step == 0:
        m = torch.zeros(n)
        v = torch.zeros(n)
    else:
        m = torch.randn(n, generator=gen) * 0.05
        v = torch.rand(n, generator=gen) * 1e-4 + 1e-6
    return p.to(device), g.to(device), m.to(device), v.to(device), torch.tensor(float(step)).to(device)


def kernel(p, g, m, v, step):
    t = float(step.item())  # torch.optim.Adam increments the step first: t = step + 1
    bc1, bc2 = 1.0 - B1 ** t, 1.0 - B2 ** t
    n = p.numel()
    po, mo, vo = torch.empty_like(p), torch.empty_like(m), torch.empty_like(v)
    adam_step[(triton.cdiv(n, BLOCK),)](p, g, m, v, po, mo, vo, n, LR, B1, B2, EPS, bc1, bc2, BLOCK=BLOCK)
    return po, mo, vo


def reference(p, g, m, v, step):
    t = float(step.item()) + 1.0
    m2 = B1 * m + (1.0 - B1) * g
    v2 = B2 * v + (1.0 - B2) * g * g
    p2 = p - LR * (m2 / (1.0 - B1 ** t)) / ((v2 / (1.0 - B2 ** t)).sqrt() + EPS)
    return p2, m2, v2
