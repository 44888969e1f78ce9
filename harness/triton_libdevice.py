"""``libdevice`` for Triton's interpreter, on a machine without a GPU.

Model-written Triton kernels often call ``triton.language.extra.libdevice`` (``libdevice.tanh``,
``erf``, ``pow`` ...): on a GPU the compiler links NVIDIA's libdevice; under ``TRITON_INTERPRET=1``
those functions are empty stubs that return ``None``, and the kernel dies in the next ``tl.store``
("cannot convert None ... to tensor") before anything is checked.  When the children emulate CUDA
(:mod:`harness.emulate`), the stubs are replaced by their numpy equivalents, computed in the input's
dtype; each use is counted for the report.  Functions without an equivalent here stay stubs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _round(x: Any) -> Any:  # libdevice round: half away from zero
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _erf(x: Any) -> Any:
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


UNARY: dict[str, Callable[..., Any]] = {
    "tanh": np.tanh, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "round": _round, "abs": np.abs, "fabs": np.abs, "erf": _erf, "cbrt": np.cbrt, "rcp": lambda x: 1.0 / x,
}  # fmt: skip
BINARY: dict[str, Callable[..., Any]] = {
    "pow": np.power, "powf": np.power, "fmod": np.fmod, "atan2": np.arctan2, "hypot": np.hypot,
    "copysign": np.copysign, "fmax": np.fmax, "fmin": np.fmin, "max": np.maximum, "min": np.minimum,
}  # fmt: skip


def _values(handle: Any) -> Any:
    import triton.language as tl

    from harness.triton_bf16 import decode

    return decode(handle.data) if handle.dtype.scalar == tl.bfloat16 else handle.data


def _wrap(name: str, npfn: Callable[..., Any], hit: Callable[[str], None]) -> Callable[..., Any]:
    def fn(*args: Any, **kwargs: Any) -> Any:
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle

        tensors = [a for a in args if isinstance(a, tl.core.tensor)]
        if not tensors:
            return None  # outside a kernel: the stub's own answer
        hit(f"libdevice.{name}")
        first = tensors[0]
        from harness.triton_bf16 import encode

        bf16 = first.handle.dtype.scalar == tl.bfloat16  # raw bits in the interpreter: computed in float32
        data = [_values(a.handle) if isinstance(a, tl.core.tensor) else a for a in args]
        dtype = first.handle.data.dtype
        with np.errstate(all="ignore"):
            out = np.asarray(npfn(*data))
            out = encode(out.astype(np.float32)) if bf16 else out.astype(dtype)
        return tl.core.tensor(TensorHandle(out, first.handle.dtype.scalar), first.type)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = STUBS  # Triton's compiler maps the stubs' module, by name, to the backend's libdevice
    return fn


STUBS = "triton.language.extra.libdevice"


def install(hit: Callable[[str], None]) -> None:
    """Replace the stubs of ``triton.language.extra.libdevice``.  The backend's own module (``extra.cuda``)
    is left alone: compiling a launch for the target GPU (harness.triton_capture) maps the stubs to it."""
    try:
        mod = __import__(STUBS, fromlist=["_"])
    except Exception:  # another Triton layout: nothing to replace
        return
    for name, npfn in (*UNARY.items(), *BINARY.items()):
        if callable(getattr(mod, name, None)):
            setattr(mod, name, _wrap(name, npfn, hit))
