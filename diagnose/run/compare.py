"""Compare the kernel's outputs with the reference's, in the parent (a process that runs no submission code).

Per output tensor: shape and dtype first (a mismatch fails it, and is reported as such; an output
of the reference's transposed shape that holds the reference transposed says so), then values: an
element is close when ``|out - ref| <= atol + rtol * |ref|``; NaN matches only NaN, an infinity
only the same infinity; integers and bool must be equal.  :mod:`diagnose.run.numerics` measures the
rest: absolute, relative and ULP distances (on the dtype's own bits), NaN/+Inf/-Inf counted apart,
a ULP histogram, the first bad indices with got/expected, *where* the bad elements are and what
the output holds instead; :func:`diagnose.run.runfacts.numerics_facts` turns it into the ``numerics`` facts rules read.

Default tolerances (``DEFAULT_TOLERANCE``), and why.  eps is the spacing of the dtype at 1.0:

==============  ======  ======  ========  ==========================================================
dtype           atol    rtol    eps       why
==============  ======  ======  ========  ==========================================================
float64         1e-7    1e-7    2.2e-16   torch.testing's float64 defaults; a float64 kernel that
                                          misses 1e-7 is not rounding differently, it computes
                                          something else (or accumulates in float32)
float32         1e-4    1e-4    1.2e-7    torch.testing's 1.3e-6 fails correct kernels that only
                                          sum in another order: a K=4096 reduction differs by
                                          ~sqrt(K)*eps ~ 1e-5 relative (worst case K*eps ~ 5e-4
                                          for one-signed data); 1e-4 passes that and still fails a
                                          float16/bfloat16/TF32 accumulator (eps >= 9.8e-4)
float16         1e-3    2e-3    9.8e-4    kernel and reference round at different points: 1-2 ULP
                                          (rtol = 2 ULP at the top of a binade); atol for values
                                          near 0, where float16 subnormals (< 6.1e-5) lose digits
bfloat16        1e-2    1.6e-2  7.8e-3    torch.testing's bfloat16 rtol (2 ULP); 8 significand bits
float8_e4m3fn   0.125   0.125   0.125     1 ULP at the top of a binade (3 mantissa bits): scaling
                                          and a different rounding point cost one step
float8_e5m2     0.25    0.25    0.25      1 ULP (2 mantissa bits)
complex64/128   as float32 / float64, on the complex difference
integers, bool  exact   exact             integer arithmetic has no rounding to explain a difference
==============  ======  ======  ========  ==========================================================

Overrides: the target's ``TOLERANCE`` (a number for both, ``{"atol", "rtol"}`` for every dtype,
``{dtype: {"atol", "rtol"}}`` per dtype; dtype names as torch spells them, or fp16/bf16/fp32/...),
then ``kdiag run --atol/--rtol`` over both (:func:`with_override`).  A run whose differences are all
inside the tolerance passes; when there are differences at all, the report calls them *expected
variation* and gives the figures (max abs, max ULP) — never a finding.

>>> import numpy as np
>>> r = compare_arrays(np.ones(8, np.float32), np.ones(8, np.float32) + 1e-7, "float32", "float32", None)
>>> r.ok, r.mismatched, r.max_ulp, r.ulp_hist
(True, 0, 1.0, (0, 8, 0, 0, 0, 0, 0))
>>> bad = np.ones(8, np.float32); bad[6:] = np.nan
>>> r = compare_arrays(bad, np.ones(8, np.float32), "float32", "float32", None)
>>> r.ok, r.mismatched, r.nan_count, r.where, r.first_bad_at
(False, 2, 2, 'tail', ((6,), (7,)))
>>> tolerance_for("float16", with_override({"fp16": {"atol": 0.5}}, None, 0.1))
(0.5, 0.1)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.run import arrays as A

#: dtype -> (atol, rtol); the table above says why
DEFAULT_TOLERANCE: dict[str, tuple[float, float]] = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-4, 1e-4),
    "float16": (1e-3, 2e-3),
    "bfloat16": (1e-2, 1.6e-2),
    "float8_e4m3fn": (1.25e-1, 1.25e-1),
    "float8_e5m2": (2.5e-1, 2.5e-1),
    "complex64": (1e-4, 1e-4),
    "complex128": (1e-7, 1e-7),
}
ALIASES = {
    "fp64": "float64", "double": "float64", "f64": "float64",
    "fp32": "float32", "float": "float32", "f32": "float32",
    "fp16": "float16", "half": "float16", "f16": "float16",
    "bf16": "bfloat16",
    "fp8_e4m3": "float8_e4m3fn", "float8_e4m3": "float8_e4m3fn", "e4m3": "float8_e4m3fn",
    "fp8_e5m2": "float8_e5m2", "e5m2": "float8_e5m2",
}  # fmt: skip
OVERRIDE = "kdiag_cli"  # the key with_override puts the command line's figures under


@dataclass(frozen=True)
class LeafResult:
    name: str
    ok: bool
    dtype: str | None = None
    shape: tuple[int, ...] = ()
    total: int = 0
    mismatched: int = 0
    max_abs: float | None = None
    max_rel: float | None = None
    max_ulp: float | None = None
    nan_count: int = 0  # NaN in the output where the reference has none
    inf_count: int = 0  # +Inf and -Inf together (posinf_count + neginf_count)
    shape_mismatch: bool = False
    dtype_mismatch: bool = False
    first_bad: int | None = None  # flat index
    exact: int = 0  # elements bitwise equal to the reference's (wrong indexing often leaves some right)
    permuted: bool = False  # every value is right, but some are in the wrong place
    atol: float | None = None
    rtol: float | None = None
    problem: str | None = None  # why the leaf could not be compared
    # diagnose/run/numerics.py: the finer figures
    posinf_count: int = 0
    neginf_count: int = 0
    lost_count: int = 0  # NaN/Inf of the reference the output does not reproduce
    ulp_hist: tuple[int, ...] = ()  # numerics.ULP_BUCKETS
    fraction: float | None = None  # outside tolerance
    first_bad_at: tuple[tuple[int, ...], ...] = ()  # multi-dimensional indices of the first bad elements
    first_bad_got: tuple[Any, ...] = ()
    first_bad_expected: tuple[Any, ...] = ()
    where: str | None = None  # numerics.locate: none | tail | head | rows | columns | periodic | everywhere | scattered
    tail_block: int | None = None
    tail_blocks: tuple[int, ...] = ()
    tail_axis: int | None = None
    period: int | None = None
    period_axis: int | None = None
    bad_rows: int = 0
    bad_cols: int = 0
    transposed: bool = False
    shift: int | None = None
    shift_axis: int | None = None
    segment: int | None = None
    sentinel_count: int = 0  # bad elements still holding the allocation sentinel
    zero_count: int = 0  # bad elements exactly 0 where the reference is not
    median_rel: float | None = None
    precision_bits: float | None = None
    growth_position: float | None = None
    scale: float | None = None  # every bad element is the reference times this factor
    scale_by_column: bool = False  # ... plus an offset per column
    wrapped_bits: int | None = None  # integers: every bad element off by a multiple of 2**wrapped_bits

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class SizeResult:
    label: str
    ok: bool
    missing: bool = False  # the kernel child wrote nothing for this size
    kernel_error: str | None = None
    reference_error: str | None = None
    invalid: str | None = None  # the result could not be read or does not have the reference's structure
    leaves: tuple[LeafResult, ...] = ()
    mutated: tuple[str, ...] = ()
    unwritten: Mapping[str, Any] = field(default_factory=dict)
    nondeterministic: bool = False
    kernel_s: float | None = None
    input_elems: int | None = None  # elements of every input tensor together (reduction length proxy)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "ok": self.ok,
            "missing": self.missing,
            "kernel_error": self.kernel_error,
            "reference_error": self.reference_error,
            "invalid": self.invalid,
            "mutated": list(self.mutated),
            "unwritten": dict(self.unwritten),
            "nondeterministic": self.nondeterministic,
            "kernel_s": self.kernel_s,
            "input_elems": self.input_elems,
            "outputs": [leaf.to_dict() for leaf in self.leaves],
        }


def with_override(tolerance: Any, atol: float | None, rtol: float | None) -> Any:
    """The target's TOLERANCE with the command line's ``--atol``/``--rtol`` over it (every dtype)."""
    if atol is None and rtol is None:
        return tolerance
    cli = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v is not None}
    return {OVERRIDE: cli, "declared": tolerance}


def _pair(value: Any, base: tuple[float, float]) -> tuple[float, float] | None:
    """(atol, rtol) from a number, a pair, or a mapping with atol/rtol; None when it is none of these."""
    try:
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            return float(value), float(value)
        if isinstance(value, list | tuple) and len(value) == 2:
            return float(value[0]), float(value[1])
        if isinstance(value, Mapping) and ("atol" in value or "rtol" in value):
            return float(value.get("atol", base[0])), float(value.get("rtol", base[1]))
    except (TypeError, ValueError):
        return None
    return None


def tolerance_for(dtype: str, tolerance: Any) -> tuple[float, float] | None:
    """(atol, rtol) for a dtype (None: exact).  TOLERANCE as in the module docstring; see with_override."""
    default = DEFAULT_TOLERANCE.get(dtype)
    if isinstance(tolerance, Mapping) and OVERRIDE in tolerance:
        inner = tolerance_for(dtype, tolerance.get("declared"))
        if inner is None and dtype not in DEFAULT_TOLERANCE:
            return None  # integers stay exact whatever the command line says
        got = _pair(tolerance[OVERRIDE], inner or (0.0, 0.0))
        return got or inner
    base = default or (0.0, 0.0)
    if isinstance(tolerance, Mapping):
        named = {
            ALIASES.get(str(k).removeprefix("torch."), str(k).removeprefix("torch.")): v for k, v in tolerance.items()
        }
        if dtype in named:
            return _pair(named[dtype], base) or default
        if default is None:
            return None  # a global tolerance does not loosen an exact (integer) comparison
        return _pair(tolerance, base) or default
    if default is None:
        return None
    return _pair(tolerance, base) or default


def compare_arrays(out: Any, ref: Any, out_dtype: str, ref_dtype: str, tolerance: Any, name: str = "out") -> LeafResult:
    from diagnose.run import numerics as N

    tol = tolerance_for(ref_dtype, tolerance)
    floats = ref_dtype in A.FLOATS or ref_dtype.startswith("complex")
    atol, rtol = tol if tol is not None and floats else (None, None)
    if tuple(out.shape) != tuple(ref.shape):
        transposed = out_dtype == ref_dtype and N.is_transposed(out, ref, atol, rtol)
        return LeafResult(
            name, False, out_dtype, tuple(out.shape), int(ref.size), int(ref.size), shape_mismatch=True,
            transposed=transposed, fraction=1.0 if ref.size else None,
            problem=f"shape {tuple(out.shape)}, reference {tuple(ref.shape)}"
            + (" (the reference transposed)" if transposed else ""),
        )  # fmt: skip
    if out_dtype != ref_dtype:
        return LeafResult(
            name, False, out_dtype, tuple(out.shape), int(ref.size), int(ref.size), dtype_mismatch=True,
            fraction=1.0 if ref.size else None, problem=f"dtype {out_dtype}, reference {ref_dtype}",
        )  # fmt: skip
    if ref_dtype.startswith("complex"):
        return _compare_complex(out, ref, ref_dtype, atol, rtol, name)
    c = N.compare(out, ref, ref_dtype, atol, rtol)
    total, mismatched = c.total, c.mismatched
    permuted = bool(mismatched and total <= PERMUTATION_CHECK_LIMIT and _same_values(out, ref, atol, rtol))
    return LeafResult(
        name=name,
        ok=mismatched == 0,
        dtype=ref_dtype,
        shape=tuple(int(n) for n in ref.shape),
        total=total,
        mismatched=mismatched,
        max_abs=c.max_abs,
        max_rel=c.max_rel,
        max_ulp=c.max_ulp,
        nan_count=c.nan,
        inf_count=c.posinf + c.neginf,
        first_bad=int(N.np.ravel_multi_index(c.first_bad[0][0], ref.shape)) if c.first_bad else None,
        exact=c.exact,
        permuted=permuted,
        atol=atol,
        rtol=rtol,
        posinf_count=c.posinf,
        neginf_count=c.neginf,
        lost_count=c.lost,
        ulp_hist=c.ulp_hist,
        fraction=(mismatched / total) if total else None,
        first_bad_at=tuple(i for i, _, _ in c.first_bad),
        first_bad_got=tuple(g for _, g, _ in c.first_bad),
        first_bad_expected=tuple(e for _, _, e in c.first_bad),
        where=c.where,
        tail_block=c.tail_block,
        tail_blocks=c.tail_blocks,
        tail_axis=c.tail_axis,
        period=c.period,
        period_axis=c.period_axis,
        bad_rows=c.bad_rows,
        bad_cols=c.bad_cols,
        transposed=c.transposed,
        shift=c.shift,
        shift_axis=c.shift_axis,
        segment=c.segment,
        sentinel_count=c.sentinel,
        zero_count=c.zeros,
        median_rel=c.median_rel,
        precision_bits=c.precision_bits,
        growth_position=c.growth_position,
        scale=c.scale,
        scale_by_column=c.scale_by_column,
        wrapped_bits=c.wrapped_bits,
    )


def _compare_complex(out: Any, ref: Any, dtype: str, atol: float | None, rtol: float | None, name: str) -> LeafResult:
    """Complex outputs: the tolerance on the complex difference; no ULP, where the bad elements are (numerics.locate)."""
    import numpy as np

    from diagnose.run import numerics as N

    o, r = out.astype(np.complex128), ref.astype(np.complex128)
    total = int(r.size)
    a, t = (atol or 0.0), (rtol or 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(o - r)
        bad = ~np.isclose(o, r, atol=a, rtol=t, equal_nan=True)
        rel = np.where(np.abs(r) > 0, diff / np.where(np.abs(r) > 0, np.abs(r), 1.0), 0.0)
    mismatched = int(bad.sum())
    fin = np.isfinite(diff)
    return LeafResult(
        name=name, ok=mismatched == 0, dtype=dtype, shape=tuple(int(n) for n in ref.shape), total=total,
        mismatched=mismatched, max_abs=float(diff[fin].max()) if fin.any() else None,
        max_rel=float(rel[fin].max()) if fin.any() else None, nan_count=int((np.isnan(o) & ~np.isnan(r)).sum()),
        where=N.locate(bad)["where"] if mismatched else None,
        first_bad=int(np.flatnonzero(bad.reshape(-1))[0]) if mismatched else None,
        exact=int((o == r).sum()), atol=atol, rtol=rtol, fraction=(mismatched / total) if total else None,
    )  # fmt: skip


PERMUTATION_CHECK_LIMIT = 1 << 24  # elements: sorting both sides is cheap up to here


def _same_values(out: Any, ref: Any, atol: float | None, rtol: float | None) -> bool:
    """Do the two arrays hold the same multiset of values (within tolerance)?"""
    import numpy as np

    if np.iscomplexobj(ref):
        return False
    o, r = np.sort(out.astype(np.float64), axis=None), np.sort(ref.astype(np.float64), axis=None)
    if atol is None or rtol is None:
        return bool(np.array_equal(o, r, equal_nan=True))
    with np.errstate(invalid="ignore"):
        return bool(np.allclose(o, r, atol=atol, rtol=rtol, equal_nan=True))


def _struct_shape(s: Any) -> Any:
    """The structure with tensor names erased: two results must agree on it."""
    if not isinstance(s, Mapping):
        return None
    if "t" in s:
        return "tensor"
    for key in ("tuple", "list"):
        if key in s and isinstance(s[key], list):
            return [key, [_struct_shape(x) for x in s[key]]]
    if "dict" in s and isinstance(s["dict"], Mapping):
        return {k: _struct_shape(v) for k, v in s["dict"].items()}
    return ["value", s.get("v")] if "v" in s else sorted(s)


def _tensor_leaves(s: Any) -> list[str]:
    if not isinstance(s, Mapping):
        return []
    if "t" in s:
        return [str(s["t"])]
    out: list[str] = []
    for key in ("tuple", "list"):
        for x in s.get(key, []) if isinstance(s.get(key), list) else []:
            out += _tensor_leaves(x)
    if isinstance(s.get("dict"), Mapping):
        for v in s["dict"].values():
            out += _tensor_leaves(v)
    return out


def compare_size(
    label: str,
    kernel: Mapping[str, Any] | None,
    kernel_dir: Path,
    reference: Mapping[str, Any] | None,
    reference_dir: Path,
    tolerance: Any,
    inputs: Mapping[str, Any] | None = None,
) -> SizeResult:
    """One declared size: the kernel child's record for it against the reference's.

    ``inputs`` is the size's entry of the inputs manifest: its tensors' element count is kept
    (input elements per output element stands in for the reduction length across sizes).
    """
    if reference is None or reference.get("error") or "structure" not in reference:
        err = (reference or {}).get("error") or "the reference wrote no result"
        return SizeResult(label, False, reference_error=str(err), missing=kernel is None, input_elems=_elems(inputs))
    if kernel is None:
        return SizeResult(label, False, missing=True, input_elems=_elems(inputs))
    common: dict[str, Any] = {
        "input_elems": _elems(inputs),
        "mutated": tuple(str(m) for m in kernel.get("mutated", ()) or ()),
        "unwritten": dict(kernel.get("unwritten") or {}),
        "nondeterministic": bool(kernel.get("nondeterministic", False)),
        "kernel_s": kernel.get("kernel_s"),
    }
    if kernel.get("error"):
        return SizeResult(label, False, kernel_error=str(kernel["error"]), **common)
    if kernel.get("result_invalid") or "structure" not in kernel:
        return SizeResult(label, False, invalid=str(kernel.get("result_invalid") or "no outputs recorded"), **common)
    ks, rs = kernel["structure"], reference["structure"]
    if _struct_shape(ks) != _struct_shape(rs):
        return SizeResult(
            label,
            False,
            invalid=f"the kernel returned {_struct_shape(ks)}, the reference {_struct_shape(rs)}",
            **common,
        )
    leaves = []
    try:
        for kname, rname in zip(_tensor_leaves(ks), _tensor_leaves(rs), strict=True):
            kent, rent = kernel["tensors"][kname], reference["tensors"][rname]
            out = A.load(kernel_dir, kent)
            ref = A.load(reference_dir, rent)
            leaves.append(compare_arrays(out, ref, kent["dtype"], rent["dtype"], tolerance, name=kname))
    except (A.ResultInvalid, KeyError, TypeError, ValueError) as e:
        return SizeResult(label, False, invalid=f"{type(e).__name__}: {e}", **common)
    ok = all(leaf.ok for leaf in leaves) and not common["mutated"] and not common["unwritten"]
    return SizeResult(label, ok, leaves=tuple(leaves), **common)


def _elems(inputs: Mapping[str, Any] | None) -> int | None:
    tensors = (inputs or {}).get("tensors")
    if not isinstance(tensors, Mapping) or not tensors:
        return None
    total = 0
    for t in tensors.values():
        shape = t.get("shape") if isinstance(t, Mapping) else None
        if not isinstance(shape, list) or not all(isinstance(d, int) for d in shape):
            return None
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def checked(size: SizeResult, row: Mapping[str, Any]) -> SizeResult:
    """One size as the problem's own checker judged it (``harness.check``): good, or not with its message
    (or what the checker raised).  kdiag's comparison stays as evidence of where the outputs differ."""
    if row.get("error"):
        return dataclasses.replace(size, ok=False, invalid=f"check_implementation: {row['error']}")
    if row.get("good"):
        return dataclasses.replace(size, ok=not (size.mutated or size.unwritten), invalid=None)
    message = str(row.get("message") or "check_implementation rejected the output")
    values_differ = any(not leaf.ok and leaf.problem is None and not (leaf.shape_mismatch or leaf.dtype_mismatch)
                        for leaf in size.leaves)  # fmt: skip
    if values_differ and size.invalid is None:
        # the checker and kdiag's comparison agree that the values are off: the result is of the right
        # kind, and the figures of where and by how much are the evidence (not "an invalid result")
        return dataclasses.replace(size, ok=False)
    return dataclasses.replace(size, ok=False, invalid=size.invalid or f"check_implementation: {message}")
