"""The interpreter's integer-overflow sanitizer is switched off only where its assert would be dropped.

Triton 3.7.1's interpreter recomputes every 32-bit integer add, sub and mul in int64 and hands the range check to
``device_assert``, which does nothing unless the options' ``debug`` is on.  ``harness.triton_bounds`` skips that
arithmetic; the kernel's results must not change, whether or not its integers wrap.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from harness.triton_bounds import _skip_discarded_overflow_checks

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class _Options:
    debug: bool = False
    sanitize_overflow: bool = True


def _interp(options: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(interpreter_builder=types.SimpleNamespace(options=options))


def test_the_sanitizer_goes_only_when_debug_is_off() -> None:
    off = _interp(_Options(debug=False))
    _skip_discarded_overflow_checks(off)
    assert off.interpreter_builder.options == _Options(debug=False, sanitize_overflow=False)
    on = _interp(_Options(debug=True))
    _skip_discarded_overflow_checks(on)
    assert on.interpreter_builder.options == _Options(debug=True, sanitize_overflow=True)
    odd = _interp(None)  # another Triton's builder without options: left alone
    _skip_discarded_overflow_checks(odd)
    assert odd.interpreter_builder.options is None


CHILD = r"""
import json, sys
from triton.runtime import interpreter
if sys.argv[1] == "1":
    from harness.triton_bounds import patch_interpreter
    patch_interpreter()
import torch, triton, triton.language as tl

@triton.jit
def mix(x_ptr, o_ptr, n, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    x = tl.load(x_ptr + r, mask=r < n)
    y = x * 1103515245 + 12345 - (x << 7)  # wraps in int32 for most x
    tl.store(o_ptr + r, y * r, mask=r < n)

x = torch.arange(-500, 500, dtype=torch.int32) * 65521
o = torch.empty_like(x)
mix[(8,)](x, o, x.numel(), B=128)
opts = interpreter.interpreter_builder.options
print(json.dumps({"out": o.tolist(), "sanitize": opts.sanitize_overflow, "debug": opts.debug}))
"""


def _child(patched: bool) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", CHILD, "1" if patched else "0"], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_kernel_whose_integers_wrap_computes_the_same_without_the_sanitizer() -> None:
    plain, patched = _child(patched=False), _child(patched=True)
    assert (plain["sanitize"], plain["debug"]) == (True, False)  # the interpreter's own options
    assert (patched["sanitize"], patched["debug"]) == (False, False)
    assert patched["out"] == plain["out"]
    x = [v * 65521 for v in range(-500, 500)]
    wrapped = [(((v * 1103515245 + 12345 - (v << 7)) + 2**31) % 2**32 - 2**31) for v in x]
    want = [(((w * i) + 2**31) % 2**32 - 2**31) for i, w in enumerate(wrapped)]
    assert patched["out"] == want  # two's-complement wrap-around, as on the GPU
