"""Compare the kernel's outputs with the reference's, in the parent (a process that runs no submission code).

Per output tensor: shape and dtype first (a mismatch fails it), then values: an element is close
when ``|out - ref| <= atol + rtol * |ref|`` (the dtype's default tolerance, or the target's
``TOLERANCE``); NaN matches only NaN, an infinity only the same infinity.  Reported with it:
absolute, relative and ULP distances, NaN/Inf the reference does not have, and where the bad
elements are (``tail``, ``head``, ``everywhere``, ``rows``, ``scattered``).

>>> import numpy as np
>>> r = compare_arrays(np.ones(8, np.float32), np.ones(8, np.float32) + 1e-7, "float32", "float32", None)
>>> r.ok, r.mismatched, r.max_ulp
(True, 0, 1.0)
>>> bad = np.ones(8, np.float32); bad[6:] = np.nan
>>> r = compare_arrays(bad, np.ones(8, np.float32), "float32", "float32", None)
>>> r.ok, r.mismatched, r.nan_count, r.pattern
(False, 2, 2, 'tail')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.run import arrays as A

#: dtype -> (atol, rtol).  float32 allows for a different summation order (a K=4096 dot product in
#: another order differs by ~1e-5 relative), the 16- and 8-bit types for their own rounding.
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
    inf_count: int = 0
    shape_mismatch: bool = False
    dtype_mismatch: bool = False
    pattern: str | None = None
    first_bad: int | None = None  # flat index
    exact: int = 0  # elements bitwise equal to the reference's (wrong indexing often leaves some right)
    permuted: bool = False  # every value is right, but some are in the wrong place
    atol: float | None = None
    rtol: float | None = None
    problem: str | None = None  # why the leaf could not be compared

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
            "outputs": [leaf.to_dict() for leaf in self.leaves],
        }


def tolerance_for(dtype: str, tolerance: Any) -> tuple[float, float] | None:
    """(atol, rtol) for a dtype: TOLERANCE may be ``{atol, rtol}`` or ``{dtype: {atol, rtol}}``."""
    default = DEFAULT_TOLERANCE.get(dtype)
    if isinstance(tolerance, Mapping):
        chosen = tolerance.get(dtype, tolerance)
        if isinstance(chosen, Mapping) and ("atol" in chosen or "rtol" in chosen):
            base = default or (0.0, 0.0)
            try:
                return float(chosen.get("atol", base[0])), float(chosen.get("rtol", base[1]))
            except (TypeError, ValueError):
                return default
    return default


def compare_arrays(out: Any, ref: Any, out_dtype: str, ref_dtype: str, tolerance: Any, name: str = "out") -> LeafResult:
    import numpy as np

    if tuple(out.shape) != tuple(ref.shape):
        return LeafResult(
            name, False, out_dtype, tuple(out.shape), int(ref.size), int(ref.size), shape_mismatch=True,
            problem=f"shape {tuple(out.shape)}, reference {tuple(ref.shape)}",
        )  # fmt: skip
    if out_dtype != ref_dtype:
        return LeafResult(
            name, False, out_dtype, tuple(out.shape), int(ref.size), int(ref.size), dtype_mismatch=True,
            problem=f"dtype {out_dtype}, reference {ref_dtype}",
        )  # fmt: skip
    total = int(ref.size)
    tol = tolerance_for(ref_dtype, tolerance)
    if tol is None or (ref_dtype not in A.FLOATS and not ref_dtype.startswith("complex")):
        bad = out != ref  # integers and bool: exact
        atol = rtol = None
        diff = np.abs(out.astype(np.float64) - ref.astype(np.float64)) if total else np.zeros(0)
        rel = None
        nan_count = inf_count = 0
    else:
        atol, rtol = tol
        o = out.astype(np.complex128 if ref_dtype.startswith("complex") else np.float64)
        r = ref.astype(o.dtype)
        o_nan, r_nan = np.isnan(o), np.isnan(r)
        o_inf, r_inf = np.isinf(o), np.isinf(r)
        finite = ~(o_nan | r_nan | o_inf | r_inf)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(finite, np.abs(o - r), 0.0)
            close = diff <= atol + rtol * np.abs(np.where(finite, r, 0.0))
        same_special = (o_nan & r_nan) | (o_inf & r_inf & (o == r))
        bad = ~(np.where(finite, close, same_special))
        nan_count = int((o_nan & ~r_nan).sum())
        inf_count = int((o_inf & ~r_inf).sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            rel_all = np.where(finite & (np.abs(r) > 0), diff / np.abs(np.where(finite, r, 1.0)), 0.0)
        rel = float(rel_all.max()) if total else None
    mismatched = int(bad.sum())
    exact = int((out == ref).sum()) if total else 0
    permuted = bool(mismatched and total <= PERMUTATION_CHECK_LIMIT and _same_values(out, ref, atol, rtol))
    ulp = None
    ob, rb = A.bits(out, ref_dtype), A.bits(ref, ref_dtype)
    if ob is not None and total:
        fin = np.isfinite(out.astype(np.float64)) & np.isfinite(ref.astype(np.float64))
        if fin.any():
            ulp = float(np.abs(ob - rb)[fin].max())
    return LeafResult(
        name=name,
        ok=mismatched == 0,
        dtype=ref_dtype,
        shape=tuple(int(n) for n in ref.shape),
        total=total,
        mismatched=mismatched,
        max_abs=float(diff.max()) if total else None,
        max_rel=rel,
        max_ulp=ulp,
        nan_count=nan_count,
        inf_count=inf_count,
        pattern=where(bad) if mismatched else None,
        first_bad=int(np.flatnonzero(bad)[0]) if mismatched else None,
        exact=exact,
        permuted=permuted,
        atol=atol,
        rtol=rtol,
    )


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


def where(bad: Any) -> str:
    """Where the bad elements are: everywhere | tail | head | rows | scattered."""
    import numpy as np

    flat = bad.reshape(-1)
    n, k = flat.size, int(flat.sum())
    if k == n:
        return "everywhere"
    idx = np.flatnonzero(flat)
    if idx[-1] - idx[0] + 1 == k:
        if idx[-1] == n - 1:
            return "tail"
        if idx[0] == 0:
            return "head"
    if bad.ndim >= 2:
        rows = bad.reshape(bad.shape[0], -1)
        hit = rows.any(axis=1)
        if rows[hit].all() and hit.sum() < rows.shape[0]:
            return "rows"
    if k / n > 0.5:
        return "everywhere"
    return "scattered"


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
) -> SizeResult:
    """One declared size: the kernel child's record for it against the reference child's."""
    if reference is None or reference.get("error") or "structure" not in reference:
        err = (reference or {}).get("error") or "the reference wrote no result"
        return SizeResult(label, False, reference_error=str(err), missing=kernel is None)
    if kernel is None:
        return SizeResult(label, False, missing=True)
    common: dict[str, Any] = {
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
