"""harness.triton_bf16 in a real child (Triton 3.7.1's interpreter, CPU tensors): bfloat16 arithmetic, tl.dot,
reductions, scans and constants agree with torch; without the patch the interpreter's own answers do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys
if sys.argv[1] == "1":
    from harness import triton_bf16
    triton_bf16.install()
import torch, triton, triton.language as tl

@triton.jit
def ops(x_ptr, y_ptr, a_ptr, b_ptr, o_ptr, s_ptr, m_ptr, c_ptr, d_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    tl.store(o_ptr + r, tl.where(x > y, x * y + x, y * 3.0))
    tl.store(s_ptr, tl.sum(x, axis=0))
    tl.store(m_ptr, tl.max(x, axis=0))
    tl.store(c_ptr + r, tl.cumsum(x, axis=0))
    a = tl.load(a_ptr + r[:, None] * B + r[None, :])
    b = tl.load(b_ptr + r[:, None] * B + r[None, :])
    tl.store(d_ptr + r[:, None] * B + r[None, :], tl.dot(a, b))

torch.manual_seed(0)
B = 16
bf = torch.bfloat16
x, y = torch.randn(B, dtype=bf), torch.randn(B, dtype=bf)
a, b = torch.randn(B, B, dtype=bf), torch.randn(B, B, dtype=bf)
o, c = torch.empty(B, dtype=bf), torch.empty(B, dtype=bf)
s, m = torch.empty(1, dtype=bf), torch.empty(1, dtype=bf)
d = torch.empty(B, B)
ops[(1,)](x, y, a, b, o, s, m, c, d, B=B)
xf, yf = x.float(), y.float()
want = {
    "elementwise": torch.where(xf > yf, xf * yf + xf, yf * 3.0),
    "sum": xf.sum(), "max": xf.max(), "cumsum": xf.cumsum(0), "dot": a.float() @ b.float(),
}
got = {"elementwise": o.float(), "sum": s.float()[0], "max": m.float()[0], "cumsum": c.float(), "dot": d}
used = {}
if sys.argv[1] == "1":
    used = dict(triton_bf16.USED)
print(json.dumps({"err": {k: float((got[k] - want[k]).abs().max()) for k in want}, "used": used}))
"""


def _child(patched: bool) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", CHILD, "1" if patched else "0"], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0 or not patched, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else {"crash": run.stderr[-300:]}


@pytest.mark.slow
def test_bfloat16_under_the_interpreter_computes_what_torch_computes() -> None:
    out = _child(patched=True)
    err = out["err"]
    # one bfloat16 rounding per operation (8 significant bits): within a few bfloat16 ULP of values below ~30
    assert err["elementwise"] <= 0.05 and err["sum"] <= 0.1 and err["max"] == 0.0, err
    assert err["cumsum"] <= 0.1 and err["dot"] <= 1e-3, err  # tl.dot accumulates in float32
    assert {"tl.dot", "bfloat16 arithmetic", "bfloat16 tl.sum"} <= set(out["used"]), out
    # the interpreter alone: the bfloat16 constant is missing, or the arithmetic works on the raw bits
    raw = _child(patched=False)
    assert "crash" in raw or max(raw["err"].values()) > 1.0, raw
