"""bfloat16 arithmetic for Triton's interpreter.

numpy has no bfloat16, so Triton's interpreter keeps bfloat16 values as their raw 16 bits (``uint16``)
and converts them correctly only in casts.  Its arithmetic does not: ``a + b``, ``a * b``, ``tl.exp``,
comparisons, ``tl.sum`` / ``tl.max`` / ``tl.cumsum`` and ``tl.dot`` on bfloat16 operands compute on the bit patterns as
integers (Triton 3.x: a bfloat16 ``tl.dot`` of unit-sized values returns ~1e10), so a correct bfloat16
kernel would look broken under the interpreter, and kdiag would blame the kernel for the interpreter's
arithmetic.  ``install`` makes those operations decode bfloat16 operands to float32, compute, and round
the result to bfloat16 (round to nearest even), one rounding per operation, as the compiled kernel does.
A bfloat16 constant (``x * 3.0``), which the interpreter's builder cannot make
(``get_bf16``), is made.  Operations that only move bits (loads, stores, ``tl.where``, ``abs``, bitcasts) are left alone; each
corrected operation is counted (:data:`USED`) for the report.

The same goes for ``tl.dot`` on float32 operands: on a GPU with TF32 tensor cores (sm_80 and later) Triton's
default ``input_precision`` is ``"tf32"``, which reads each operand with 10 mantissa bits (errors ~1e-3
relative), while the interpreter multiplies in full float32.  A float32 matmul that fails KernelBench's
1e-4 float32 check on an A100 would pass here; with ``tf32`` the operands are rounded to TF32 first, as the
tensor cores do (``input_precision="ieee"`` and ``"tf32x3"`` are left exact).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

USED: dict[str, int] = {}


def _hit(what: str) -> None:
    USED[what] = USED.get(what, 0) + 1


@functools.cache
def _types() -> tuple[Any, Any]:
    """(tl.bfloat16, the interpreter's TensorHandle), read once: the wrappers below run on every operation of every
    program under the interpreter, and most of them only ask whether an operand is bfloat16."""
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    return tl.bfloat16, TensorHandle


def _is_bf16(handle: Any) -> bool:
    dtype = getattr(handle, "dtype", None)
    return dtype is not None and getattr(dtype, "scalar", dtype) == _types()[0]


def decode(bits: Any) -> Any:
    """bfloat16 bit patterns (uint16) to float32."""
    import numpy as np

    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def encode(values: Any) -> Any:
    """float32 values to bfloat16 bit patterns, rounded to nearest even (NaN stays NaN)."""
    import numpy as np

    f = np.asarray(values, dtype=np.float32)
    b = f.view(np.uint32)
    rounded = ((b + (((b >> 16) & 1) + 0x7FFF)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), rounded)


def _float_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    from triton.runtime.interpreter import TensorHandle

    out = []
    for a in args:
        if isinstance(a, TensorHandle) and _is_bf16(a):
            out.append(TensorHandle(decode(a.data), _f32()))
        else:
            out.append(a)
    return tuple(out)


def _f32() -> Any:
    import triton.language as tl

    return tl.float32


def _back(result: Any, bf16: Any) -> Any:
    """A float32 result of a bfloat16 operation back to bfloat16 (a boolean result stays as it is)."""
    from triton.runtime.interpreter import TensorHandle

    if isinstance(result, TensorHandle) and result.dtype == _f32():
        return TensorHandle(encode(result.data), bf16)
    return result


def _through_float(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(self: Any, *args: Any) -> Any:
        handle = _types()[1]
        bf16 = next((a.dtype for a in args if isinstance(a, handle) and _is_bf16(a)), None)
        if bf16 is None:
            return fn(self, *args)
        _hit(name)
        return _back(fn(self, *_float_args(args)), getattr(bf16, "scalar", bf16))

    call.__kdiag_bf16__ = True  # type: ignore[attr-defined]
    return call


def _binary(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def binary_op(self: Any, lhs: Any, rhs: Any, op: Any) -> Any:
        if not (_is_bf16(lhs) or _is_bf16(rhs)):
            return fn(self, lhs, rhs, op)
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle

        _hit("bfloat16 arithmetic")
        a = decode(lhs.data) if _is_bf16(lhs) else lhs.data
        b = decode(rhs.data) if _is_bf16(rhs) else rhs.data
        with np.errstate(all="ignore"):
            out = np.asarray(op(a, b))
        if out.dtype == np.bool_:  # a comparison
            return TensorHandle(out, tl.int1)
        return TensorHandle(encode(out), tl.bfloat16)

    binary_op.__kdiag_bf16__ = True  # type: ignore[attr-defined]
    return binary_op


def to_tf32(values: Any) -> Any:
    """float32 values rounded to TF32 (10 explicit mantissa bits, to nearest, ties away from zero: cvt.rna.tf32.f32),
    kept in float32."""
    import numpy as np

    b = np.asarray(values, dtype=np.float32).view(np.uint32)
    finite = (b & 0x7F800000) != 0x7F800000
    rounded = np.where(finite, (b + np.uint32(0x1000)) & np.uint32(0xFFFFE000), b)
    return rounded.astype(np.uint32).view(np.float32)


def _is_tf32(precision: Any) -> bool:
    return str(getattr(precision, "name", precision)).upper().endswith("TF32")  # not TF32x3, not IEEE


def _dot(fn: Callable[..., Any], tf32: bool) -> Callable[..., Any]:
    @functools.wraps(fn)
    def create_dot(self: Any, a: Any, b: Any, d: Any, input_precision: Any = None, *rest: Any) -> Any:
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle

        if tf32 and _is_tf32(input_precision) and a.dtype.scalar == tl.float32 and b.dtype.scalar == tl.float32:
            # the GPU's tensor cores read float32 operands as TF32 (Triton's default input_precision on sm_80+)
            _hit(TF32)
            a, b = TensorHandle(to_tf32(a.data), a.dtype), TensorHandle(to_tf32(b.data), b.dtype)
            return fn(self, a, b, d, input_precision, *rest)
        if not (_is_bf16(a) or _is_bf16(b) or _is_bf16(d)):
            return fn(self, a, b, d, input_precision, *rest)
        _hit("tl.dot")
        a2, b2, d2 = _float_args((a, b, d))
        out = fn(self, a2, b2, d2, input_precision, *rest)
        return _back(out, d.dtype.scalar) if _is_bf16(d) else out

    create_dot.__kdiag_bf16__ = True  # type: ignore[attr-defined]
    return create_dot


def _reduce(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(self: Any, input: Any, *rest: Any, **kw: Any) -> Any:
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle

        t = input[0] if isinstance(input, tuple) else input
        if not (isinstance(t, tl.core.tensor) and _is_bf16(t.handle)):
            return fn(self, input, *rest, **kw)
        _hit(name)
        as_f32 = tl.core.tensor(TensorHandle(decode(t.handle.data), tl.float32), t.type.with_element_ty(tl.float32))
        out = fn(self, as_f32, *rest, **kw)
        parts = out if isinstance(out, tuple | list) else (out,)
        back = []
        for p in parts:
            if isinstance(p, tl.core.tensor) and p.handle.dtype == tl.float32:
                p = tl.core.tensor(
                    TensorHandle(encode(p.handle.data), tl.bfloat16), p.type.with_element_ty(tl.bfloat16)
                )
            back.append(p)
        return type(out)(back) if isinstance(out, tuple | list) else back[0]

    call.__kdiag_bf16__ = True  # type: ignore[attr-defined]
    return call


def _get_bf16(self: Any, value: float) -> Any:
    import numpy as np
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    return TensorHandle(encode(np.array([value], dtype=np.float32)), tl.bfloat16)


BUILDER_OPS = ("unary_op", "ternary_op", "create_fma")


#: the USED key of a tl.dot whose float32 operands were rounded to TF32
TF32 = "tl.dot of float32 as TF32"


def install(*, tf32: bool = True) -> None:
    """Patch the interpreter's arithmetic on bfloat16, and (``tf32``: a target GPU with TF32 tensor cores, sm_80+)
    its float32 ``tl.dot`` under ``input_precision="tf32"`` (once per process; another Triton layout: nothing)."""
    try:
        from triton.runtime import interpreter as interp
    except Exception:  # no triton: nothing to patch
        return
    builder = getattr(interp, "InterpreterBuilder", None)
    reduce_ops = getattr(interp, "ReduceOps", None)
    if builder is None or not callable(getattr(builder, "binary_op", None)):
        return
    if getattr(builder.binary_op, "__kdiag_bf16__", False):
        return
    for name in BUILDER_OPS:
        if callable(getattr(builder, name, None)):
            setattr(builder, name, _through_float(f"bfloat16 {name.removeprefix('create_')}", getattr(builder, name)))
    # the create_* lambdas look binary_op / unary_op up on self, so they see the patched ones
    builder.binary_op = _binary(builder.binary_op)
    if not hasattr(builder, "get_bf16"):  # a bfloat16 constant (`x * 3.0` on bfloat16 x): missing in the interpreter
        builder.get_bf16 = _get_bf16
    if callable(getattr(builder, "create_dot", None)):
        builder.create_dot = _dot(builder.create_dot, tf32)
    for ops, names in ((reduce_ops, ("sum", "min_max")), (getattr(interp, "ScanOps", None), ("cumsum", "cumprod"))):
        for name in names if ops is not None else ():
            if callable(getattr(ops, name, None)):
                setattr(ops, name, _reduce(f"bfloat16 tl.{name}", getattr(ops, name)))
