"""Where and how a kernel's output differs from the reference's: the numerical analysis behind ``kdiag run``.

Pure numpy, parent side (no torch, no triton).  :func:`compare` takes one output and its reference
(already decoded by :mod:`diagnose.run.arrays`: bfloat16 and float8 as exact float32 values), the
dtype and the tolerance, and returns a :class:`Comparison`: the distances (absolute, relative, ULP
on the dtype's own bit patterns), NaN/+Inf/-Inf counted apart, a ULP histogram, the first bad
indices, and *where* the bad elements are:

============  =======================================================================================
where         meaning
============  =======================================================================================
none          every element within tolerance
tail          only past the last full block: flat (``tail_axis`` None) or along one axis; the block
              sizes 16..1024 (powers of two) that explain it are ``tail_blocks`` — those B whose
              boundary ``(n // B) * B`` is the largest one below every bad index — and
              ``tail_block`` the largest of them
head          a contiguous run from the first element
rows          whole rows (lines along the last axis) and nothing else
columns       whole columns (lines along the second-to-last axis) and nothing else
periodic      the bad positions repeat with ``period`` elements (flat, or along the last axis)
everywhere    all elements, or more than half of them with none of the shapes above
scattered     anything else
============  =======================================================================================

and what the output *is* instead, each checked independently of ``where``: the reference
transposed (``transposed``), the reference shifted by ``shift`` elements along ``shift_axis``
(``out[i] == ref[i - shift]``), the reference plus a constant per segment of ``segment`` elements
along the last axis, the first segment right (``segment``: a blocked scan or reduction whose blocks are
never combined, each restarting from zero), the allocation sentinel ``harness/sentinel.py`` fills ``torch.empty``
with (``sentinel`` elements: never written), exact zeros where the reference is not zero
(``zeros``: a zero-filled buffer never written), NaN/Inf the reference does not have, and one factor
``scale`` the reference is multiplied by in every bad element (a normaliser that divides by the wrong count,
a scale applied twice or never).
``precision_bits`` (-log2 of the median relative error) says how many significant bits of the
reference the output keeps; ``growth_position`` compares the error at the end of the last axis with
the error at its start (a prefix sum accumulated in too narrow a type grows along it).

>>> import numpy as np
>>> ref = np.arange(1, 1001, dtype=np.float32)
>>> out = ref.copy(); out[896:] = 0
>>> c = compare(out, ref, "float32", 1e-4, 1e-4)
>>> c.where, c.tail_block, c.tail_blocks, c.zeros
('tail', 128, (128,), 104)
>>> m = np.arange(16, dtype=np.float32).reshape(4, 4) + 1
>>> compare(m.T.copy(), m, "float32", 1e-4, 1e-4).transposed
True
>>> compare(np.roll(ref, 1), ref, "float32", 1e-4, 1e-4).shift
1
>>> x = np.random.default_rng(0).standard_normal((4, 3000)).astype(np.float32)
>>> blocked = np.concatenate([np.cumsum(x[:, i:i + 1024], axis=1) for i in range(0, 3000, 1024)], axis=1)
>>> compare(blocked, np.cumsum(x, axis=1), "float32", 1e-4, 1e-4).segment
1024
>>> y = x.copy(); y[:, 1024:] += x[0, 1024:]  # a wrong value per column is no segment offset
>>> compare(y, x, "float32", 1e-4, 1e-4).segment is None
True
>>> ulp_distance(np.float16([1.0, -0.0]), np.float16([np.nextafter(np.float16(1), np.float16(2)), 0.0]), "float16")
array([1., 0.])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the ULP histogram's buckets, in order; the last counts NaN/Inf that do not match the reference's
ULP_BUCKETS = ("0", "1", "2-4", "5-16", "17-256", ">256", "nan/inf")
_ULP_EDGES = (0, 1, 4, 16, 256)  # upper bounds of the finite buckets

#: block sizes a tail is explained by (powers of two, as Triton and CUDA kernels pick them)
TAIL_BLOCKS = tuple(1 << k for k in range(4, 11))  # 16 .. 1024
TAIL_DENSITY = 0.5  # of the elements past the boundary, at least this many bad (garbage is rarely right)

#: dtype -> (bits of the storage, significand bits including the implicit one)
WIDTH = {"float64": 64, "float32": 32, "float16": 16, "bfloat16": 16, "float8_e4m3fn": 8, "float8_e5m2": 8}
SIGNIFICAND_BITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8, "float8_e4m3fn": 4, "float8_e5m2": 3}

#: the bit patterns harness/sentinel.py fills torch.empty with (kept in step with it; a test checks)
SENTINEL_BITS = {
    "float64": 0x7FF8A5A5A5A5A5A5,
    "float32": 0x7FC5A5A5,
    "float16": 0x7E5A,
    "bfloat16": 0x7FC5,
    "int64": 0xA5A5A5A5A5A5A5A5,
    "int32": 0xA5A5A5A5,
    "int16": 0xA5A5,
    "int8": 0xA5,
    "uint8": 0xA5,
    "float8_e4m3fn": 0x7F,
    "float8_e5m2": 0x7F,
}
ONE_BYTE = ("int8", "uint8", "float8_e4m3fn", "float8_e5m2")  # a sentinel that counts only when it is all

#: above this many elements the relations (transposed, shifted) are not tried: each is a full pass
RELATION_LIMIT = 1 << 22
FIRST_BAD = 8  # indices reported with got/expected


@dataclass(frozen=True)
class Comparison:
    total: int
    mismatched: int
    exact: int  # bitwise equal elements (NaN == NaN counted as equal)
    max_abs: float | None
    max_rel: float | None
    max_ulp: float | None  # over elements finite on both sides
    median_rel: float | None  # over elements finite on both sides whose reference is not zero
    mean_rel: float | None
    nan: int  # NaN in the output where the reference has a number
    posinf: int
    neginf: int
    lost: int  # NaN/Inf of the reference the output does not reproduce
    ulp_hist: tuple[int, ...]  # counts per ULP_BUCKETS
    first_bad: tuple[tuple[tuple[int, ...], Any, Any], ...]  # (index, got, expected)
    where: str
    tail_block: int | None = None
    tail_blocks: tuple[int, ...] = ()
    tail_axis: int | None = None  # None: the tail of the flat output
    period: int | None = None
    period_axis: int | None = None  # None: flat; else the (last) axis it repeats along
    bad_rows: int = 0  # rows (lines along the last axis) in which every element is bad
    bad_cols: int = 0
    transposed: bool = False
    shift: int | None = None
    shift_axis: int | None = None
    segment: int | None = None  # the output is the reference plus a constant per segment of this many elements
    sentinel: int = 0  # bad elements that still hold the allocation sentinel
    zeros: int = 0  # bad elements that are exactly 0 where the reference is not
    precision_bits: float | None = None
    growth_position: float | None = None  # median rel error, last quarter of the last axis / first quarter
    scale: float | None = None  # every bad element is the reference times this one factor
    scale_by_column: bool = False  # ... plus an offset per column (the scale applied before a per-column bias)
    wrapped_bits: int | None = None  # integers: every bad element is off by a nonzero multiple of 2**wrapped_bits
    bad: Any = field(default=None, repr=False, compare=False)  # the mask itself (not serialised)


# --- bits and ULPs -------------------------------------------------------------------------------


def _e4m3_codes() -> Any:
    from diagnose.run import arrays as A

    return A.decode(np.arange(0x7F, dtype=np.uint8), "float8_e4m3fn")  # 0x00..0x7E, increasing


def raw_bits(arr: Any, dtype: str) -> Any:
    """The dtype's own bit patterns (unsigned, as harness/arrays.py saves them) of decoded values."""
    a = np.asarray(arr)
    if dtype == "float64":
        return a.astype(np.float64).view(np.uint64)
    if dtype == "float32":
        return a.astype(np.float32).view(np.uint32)
    if dtype == "float16":
        return a.astype(np.float16).view(np.uint16)
    if dtype == "bfloat16":  # decoded as bits << 16: exact
        return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dtype == "float8_e5m2":  # the top byte of a float16: exact
        return (a.astype(np.float32).astype(np.float16).view(np.uint16) >> 8).astype(np.uint8)
    if dtype == "float8_e4m3fn":
        f = a.astype(np.float32)
        codes = _e4m3_codes()
        mag = np.abs(np.where(np.isnan(f), 0.0, f))
        code = np.searchsorted(codes, mag).clip(0, 0x7E).astype(np.uint8)
        code = np.where(np.isnan(f), np.uint8(0x7F), code).astype(np.uint8)
        return (code | np.where(np.signbit(f), np.uint8(0x80), np.uint8(0))).astype(np.uint8)
    return None


def ordered(bits: Any, width: int) -> Any:
    """Sign-magnitude bits → a monotonic integer line (+0 and -0 both 0), as int64."""
    u = bits.astype(np.uint64)
    sign = (u >> np.uint64(width - 1)) & np.uint64(1)
    mag = (u & np.uint64((1 << (width - 1)) - 1)).astype(np.int64)
    return np.where(sign == 1, -mag, mag)


def ulp_distance(out: Any, ref: Any, dtype: str) -> Any:
    """|steps between out and ref| in the dtype's own representation (float64 array; NaN where not finite)."""
    ob, rb = raw_bits(out, dtype), raw_bits(ref, dtype)
    if ob is None or rb is None:
        raise ValueError(f"no ULP for {dtype}")
    w = WIDTH[dtype]
    o, r = ordered(ob, w), ordered(rb, w)
    same_side = (o >= 0) == (r >= 0)
    with np.errstate(over="ignore"):
        d = np.where(same_side, np.abs(o - r).astype(np.float64), np.abs(o).astype(np.float64) + np.abs(r))
    fin = np.isfinite(np.asarray(out, dtype=np.float64)) & np.isfinite(np.asarray(ref, dtype=np.float64))
    return np.where(fin, d, np.nan)


def histogram(ulp: Any, special_bad: Any) -> tuple[int, ...]:
    """Counts per ULP_BUCKETS; ``ulp`` NaN where either side is not finite, ``special_bad`` the mismatched ones."""
    fin = ~np.isnan(ulp)
    u = ulp[fin]
    counts = [int((u == 0).sum())]
    lo = 0
    for hi in _ULP_EDGES[1:]:
        counts.append(int(((u > lo) & (u <= hi)).sum()))
        lo = hi
    counts.append(int((u > _ULP_EDGES[-1]).sum()))
    counts[0] += int((~fin & ~special_bad).sum())  # NaN where the reference has NaN, the same infinity
    counts.append(int(special_bad.sum()))
    return tuple(counts)


# --- where the bad elements are --------------------------------------------------------------


def tail_blocks(first_bad: int, n: int) -> tuple[int, ...]:
    """Block sizes B (16..1024) whose last full-block boundary ``(n // B) * B`` is the largest one <= first_bad."""
    bounds = {b: (n // b) * b for b in TAIL_BLOCKS}
    ok = {b: e for b, e in bounds.items() if 0 < e <= first_bad and e < n}
    if not ok:
        return ()
    best = max(ok.values())
    return tuple(b for b, e in ok.items() if e == best)


def _periodic(mask: Any, limit: int) -> int | None:
    """Smallest p with mask[..., p:] == mask[..., :-p] along the last axis (2 <= p <= len/2)."""
    n = mask.shape[-1]
    if n < 4:
        return None
    first = mask.reshape(-1, n).any(axis=0)
    idx = np.flatnonzero(first)
    if idx.size == 0:
        return None
    cands = {int(d) for d in (idx[1 : 1 + limit] - idx[0])} | {1 << k for k in range(1, 13)}
    for p in sorted(c for c in cands if 2 <= c <= n // 2):
        if np.array_equal(mask[..., p:], mask[..., :-p]):
            return p
    return None


def locate(bad: Any) -> dict[str, Any]:
    """``where`` and its details for a boolean mask of bad elements."""
    flat = bad.reshape(-1)
    n, k = flat.size, int(flat.sum())
    info: dict[str, Any] = {"where": "none", "tail_blocks": (), "tail_block": None, "tail_axis": None}
    if k == 0:
        return info
    if k == n:
        info["where"] = "everywhere"
        return info
    idx = np.flatnonzero(flat)
    first = int(idx[0])
    # lines of one element are no structure: an (M, 1) output's bad elements are not "whole rows"
    lines = bad.reshape(-1, bad.shape[-1]) if bad.ndim >= 2 and bad.shape[-1] > 1 and bad.shape[-2] > 1 else None
    if lines is not None:
        info["bad_rows"] = int(lines.all(axis=1).sum())
        cols = bad.reshape(-1, bad.shape[-2], bad.shape[-1]).all(axis=1)
        info["bad_cols"] = int(cols.sum())
    blocks = tail_blocks(first, n)
    if blocks and k < TAIL_DENSITY * (n - (n // blocks[0]) * blocks[0]):
        blocks = ()  # a few bad elements late in the output are not a tail
    # one run of bad elements that ends the output, and no more than half of it: a tail is the part the blocks did
    # not fill; the last three of four batches wrong is an offset by the batch (whole rows), not a tail
    suffix = int(idx[-1]) == n - 1 and int(idx[-1]) - first + 1 == k and 2 * k <= n
    if blocks or suffix:
        info.update(where="tail", tail_blocks=blocks, tail_block=max(blocks) if blocks else None)
        return info
    for axis in range(bad.ndim - 1, -1, -1) if bad.ndim >= 2 else ():
        per = np.moveaxis(bad, axis, 0).reshape(bad.shape[axis], -1)
        along = np.flatnonzero(per.any(axis=1))
        blocks = tail_blocks(int(along[0]), bad.shape[axis])
        if blocks and per[(bad.shape[axis] // blocks[0]) * blocks[0] :].mean() >= TAIL_DENSITY:
            info.update(where="tail", tail_blocks=blocks, tail_block=max(blocks), tail_axis=axis)
            return info
    if int(idx[-1]) - first + 1 == k and first == 0:
        info["where"] = "head"
        return info
    period = _periodic(flat, 64)
    if period is not None:
        info.update(period=period, period_axis=None)
    elif bad.ndim >= 2:
        period = _periodic(bad, 64)
        if period is not None:
            info.update(period=period, period_axis=bad.ndim - 1)
    if lines is not None:
        full = lines.all(axis=1)
        if full.any() and lines[~full].sum() == 0:
            info["where"] = "rows"
            return info
        cols3 = bad.reshape(-1, bad.shape[-2], bad.shape[-1])
        full_c = cols3.all(axis=1, keepdims=True)
        if full_c.any() and (cols3 & ~full_c).sum() == 0:
            info["where"] = "columns"
            return info
    if period is not None:
        info["where"] = "periodic"
    elif k / n > 0.5:
        info["where"] = "everywhere"
    else:
        info["where"] = "scattered"
    return info


# --- what the output is instead --------------------------------------------------------------


def _close(a: Any, b: Any, atol: float | None, rtol: float | None) -> Any:
    """Element-wise closeness (exact for atol None), NaN == NaN."""
    if atol is None or rtol is None:
        return (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isclose(a.astype(np.float64), b.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True)


def is_transposed(out: Any, ref: Any, atol: float | None, rtol: float | None) -> bool:
    """The output holds the reference transposed (last two axes), in a same-shaped or swapped-shape buffer."""
    if ref.ndim < 2 or ref.shape[-1] < 2 or ref.shape[-2] < 2 or ref.size > RELATION_LIMIT:
        return False
    t = np.swapaxes(ref, -1, -2)
    if out.shape == ref.shape and ref.shape[-1] != ref.shape[-2]:
        view = out.reshape(t.shape)  # the transposed layout written into a buffer of the right shape
    elif out.shape == t.shape:
        view = out
    else:
        return False
    if _close(t, ref, atol, rtol).all() if t.shape == ref.shape else False:
        return False  # symmetric: transposed and right are the same thing
    return bool(_close(view, t, atol, rtol).mean() >= 0.99)


SHIFTS = (1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def find_shift(out: Any, ref: Any, atol: float | None, rtol: float | None) -> tuple[int, int] | None:
    """(k, axis) with out[i] == ref[i - k] along axis on at least 99% of the overlap (and better than k=0).

    Each candidate is tried on a sample of the overlap first (a few thousand lines), and checked in
    full only when the sample agrees: a full pass per candidate would cost seconds on large outputs.
    """
    if ref.size > RELATION_LIMIT or ref.size < 4:
        return None
    base = float(_close(out, ref, atol, rtol).mean())
    if base > 0.8:
        return None  # mostly right already: a shift makes nearly everything wrong
    for axis in range(ref.ndim - 1, -1, -1):
        n = ref.shape[axis]
        o, r = np.moveaxis(out, axis, 0), np.moveaxis(ref, axis, 0)
        rest = o.reshape(n, -1).shape[1]
        pick = slice(None, None, max(1, rest // 64))  # at most ~64 lines across the other axes
        o2, r2 = o.reshape(n, -1)[:, pick], r.reshape(n, -1)[:, pick]
        for k in SHIFTS:
            if k > n // 2:
                break
            for sign in (1, -1):
                got, want = (o2[k:], r2[:-k]) if sign > 0 else (o2[:-k], r2[k:])
                if float(_close(got, want, atol, rtol).mean()) < 0.99:
                    continue
                got, want = (o[k:], r[:-k]) if sign > 0 else (o[:-k], r[k:])
                frac = float(_close(got, want, atol, rtol).mean())
                if frac >= 0.99 and frac > base + 0.2:
                    return sign * k, axis
    return None


#: the fewest elements per line along the last axis for a segment pattern to say anything
SEGMENT_MIN_LEN = 16


def find_segment(out: Any, ref: Any, bad: Any, atol: float, rtol: float) -> int | None:
    """L when, along the last axis, ``out - ref`` is constant within each segment of L elements (its steps
    match the reference's on 99% of the positions), changes only at multiples of L, and is within tolerance
    on the first segment: each block of L computed on its own and never offset by the blocks before it."""
    n = ref.shape[-1] if ref.ndim else 0
    if n < SEGMENT_MIN_LEN or ref.size > RELATION_LIMIT or not bad.any():
        return None
    o, r = out.reshape(-1, n).astype(np.float64), ref.reshape(-1, n).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        d = o - r
        step = np.abs(np.diff(d, axis=1))
        steady = step <= atol + rtol * np.abs(r[:, 1:])
    if not np.isfinite(d).all() or float(steady.mean()) < 0.99:
        return None
    breaks = np.flatnonzero(~steady.all(axis=0)) + 1  # positions where some line's offset changes
    if breaks.size == 0:
        return None
    seg = int(np.gcd.reduce(breaks))
    if seg < 4 or seg >= n:
        return None
    return seg if not bad.reshape(-1, n)[:, :seg].any() else None


#: integer widths whose wrap-around an integer output can show: (bits, the dtypes wide enough to show it)
WRAPS = ((32, ("int64", "uint64")), (16, ("int32", "int64", "uint32", "uint64")), (8, ("int16", "int32", "int64")))


def wrapped_bits(out: Any, ref: Any, bad: Any, dtype: str) -> int | None:
    """The integer width whose wrap-around every bad element shows: each is off by a nonzero multiple of 2**bits
    (a running total kept in int32 and widened at the store, a count past 65535 in an int16), else None.

    >>> ref = np.array([4321292680, 10, 4211277445], dtype=np.int64)
    >>> wrapped_bits(ref - (1 << 32), ref, np.ones(3, bool), "int64")
    32
    >>> wrapped_bits(ref - 7, ref, np.ones(3, bool), "int64") is None
    True
    """
    if not bad.any():
        return None
    d = out[bad].astype(np.int64) - ref[bad].astype(np.int64)
    for bits, dtypes in WRAPS:
        if dtype in dtypes and bool(np.all(d % (1 << bits) == 0)):
            return bits
    return None


SCALE_SPREAD = 2e-3  # relative spread of out/ref around their median that still reads as one factor
SCALE_SHARE = 0.95  # of the bad elements, at least this many on that factor


def find_scale(out: Any, ref: Any, bad: Any) -> tuple[float, bool] | None:
    """The one factor ``s`` (not 1) the bad elements are the reference times, within :data:`SCALE_SPREAD`, and
    whether it holds only up to an offset per column (``out[:, j] == s * ref[:, j] + c[j]``: a scale applied
    before a per-column bias).

    A mean or variance divided by the wrong count, a softmax scale applied twice or never, a sum over a
    block counted once per program: the output keeps the reference's shape and is off by one factor.

    >>> ref = np.linspace(-2, 2, 400, dtype=np.float32)
    >>> find_scale(ref * np.float32(1.1547), ref, np.abs(ref) > 1e-3)
    (1.1547, False)
    >>> grid = ref.reshape(20, 20); bias = np.linspace(0, 1, 20, dtype=np.float32)
    >>> find_scale((grid - bias) * np.float32(0.5) + bias, grid, np.ones((20, 20), bool))
    (0.5, True)
    >>> noisy = ref + np.random.default_rng(0).standard_normal(400).astype(np.float32)
    >>> find_scale(noisy, ref, np.ones(400, bool)) is None
    True
    """
    o, r = out[bad].astype(np.float64), ref[bad].astype(np.float64)
    usable = np.isfinite(o) & np.isfinite(r) & (r != 0)
    if int(usable.sum()) < 8 or usable.sum() < SCALE_SHARE * o.size:
        return None
    ratio = o[usable] / r[usable]
    s = _one_factor(ratio)
    if s is not None:
        return s, False
    if ref.ndim < 2 or ref.shape[-1] < 2 or ref.size // ref.shape[-1] < 4:
        return None
    o2 = out.reshape(-1, ref.shape[-1]).astype(np.float64)
    r2 = ref.reshape(-1, ref.shape[-1]).astype(np.float64)
    if not (np.isfinite(o2).all() and np.isfinite(r2).all()):
        return None
    rc, oc = r2 - r2.mean(axis=0), o2 - o2.mean(axis=0)
    spread = (rc * rc).sum(axis=0)
    cols = spread > 0
    if int(cols.sum()) < 2:
        return None
    slopes = (rc * oc).sum(axis=0)[cols] / spread[cols]
    s = _one_factor(slopes)
    if s is None:
        return None
    fit = np.abs(oc - s * rc) <= SCALE_SPREAD * np.abs(s * rc) + 1e-6 * float(np.abs(r2).max())
    return (s, True) if float(fit[bad.reshape(fit.shape)].mean()) >= SCALE_SHARE else None


def _one_factor(values: Any) -> float | None:
    s = float(np.median(values))
    if not np.isfinite(s) or s == 0 or abs(s - 1.0) < 10 * SCALE_SPREAD:
        return None
    if float(np.mean(np.abs(values - s) <= SCALE_SPREAD * abs(s))) < SCALE_SHARE:
        return None
    return round(s, 4)


def count_sentinel(out: Any, bad: Any, dtype: str) -> int:
    """Bad elements whose bits are the allocation sentinel (harness/sentinel.py)."""
    pattern = SENTINEL_BITS.get(dtype)
    if pattern is None or not bad.any():
        return 0
    if dtype in WIDTH:
        bits = raw_bits(out, dtype)
    else:
        bits = np.asarray(out).view(np.dtype(f"u{np.asarray(out).dtype.itemsize}"))
    hit = bits == pattern
    if dtype in ONE_BYTE and not hit.all():
        return 0  # one byte cannot tell a sentinel from a value, unless it is everything
    return int((hit & bad).sum())


# --- the whole comparison ------------------------------------------------------------------------


def _value(x: Any) -> Any:
    if isinstance(x, np.floating | float):
        f = float(x)
        if f != f:
            return "nan"
        if f in (float("inf"), float("-inf")):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(x, np.bool_ | bool):
        return bool(x)
    if isinstance(x, np.integer | int):
        return int(x)
    return str(x)


def compare(out: Any, ref: Any, dtype: str, atol: float | None, rtol: float | None) -> Comparison:
    """Compare two same-shaped arrays of ``dtype``; ``atol``/``rtol`` None: exact (integers, bool)."""
    total = int(ref.size)
    is_float = dtype in WIDTH and atol is not None and rtol is not None
    if total == 0:
        return Comparison(0, 0, 0, None, None, None, None, None, 0, 0, 0, 0, (0,) * len(ULP_BUCKETS), (), "none",
                          bad=np.zeros(ref.shape, bool))  # fmt: skip
    if is_float:
        assert atol is not None and rtol is not None
        o, r = out.astype(np.float64), ref.astype(np.float64)
        o_nan, r_nan, o_inf, r_inf = np.isnan(o), np.isnan(r), np.isinf(o), np.isinf(r)
        finite = ~(o_nan | r_nan | o_inf | r_inf)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(finite, np.abs(o - r), 0.0)
            close = diff <= atol + rtol * np.abs(np.where(finite, r, 0.0))
            same_special = (o_nan & r_nan) | (o_inf & r_inf & (o == r))
        bad = ~np.where(finite, close, same_special)
        special_bad = ~finite & ~same_special
        nan = int((o_nan & ~r_nan).sum())
        posinf = int((o_inf & (o > 0) & ~(r_inf & (r > 0))).sum())
        neginf = int((o_inf & (o < 0) & ~(r_inf & (r < 0))).sum())
        lost = int(((r_nan & ~o_nan) | (r_inf & (o != r))).sum())
        nz = finite & (r != 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(nz, diff / np.abs(np.where(nz, r, 1.0)), 0.0)
        ulp = ulp_distance(out, ref, dtype)
        fin_ulp = ulp[~np.isnan(ulp)]
        max_ulp = float(fin_ulp.max()) if fin_ulp.size else None
        hist = histogram(ulp, special_bad)
        rel_nz = rel[nz]
        median_rel = float(np.median(rel_nz)) if rel_nz.size else None
        mean_rel = float(rel_nz.mean()) if rel_nz.size else None
        exact = int(((o == r) | (o_nan & r_nan)).sum())
        max_rel = float(rel.max())
    else:
        bad = out != ref
        wrapped = wrapped_bits(out, ref, bad, dtype)
        # the integer distance is the integer dtype's ULP
        diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
        nan = posinf = neginf = lost = 0
        rel = None
        max_ulp = median_rel = mean_rel = max_rel = None
        d = diff[bad] if bad.any() else np.zeros(0)
        hist = (total - int(bad.sum()), int((d == 1).sum()), int(((d > 1) & (d <= 4)).sum()),
                int(((d > 4) & (d <= 16)).sum()), int(((d > 16) & (d <= 256)).sum()), int((d > 256).sum()), 0)  # fmt: skip
        exact = total - int(bad.sum())
    mismatched = int(bad.sum())
    flat_bad = np.flatnonzero(bad.reshape(-1))[:FIRST_BAD]
    fo, fr = out.reshape(-1), ref.reshape(-1)
    first = tuple(
        (tuple(int(j) for j in np.unravel_index(int(i), ref.shape)), _value(fo[i]), _value(fr[i])) for i in flat_bad
    )
    info: dict[str, Any] = locate(bad) if mismatched else {"where": "none"}
    extra = _instead(out, ref, bad, dtype, atol, rtol, rel, median_rel)
    if not is_float and wrapped:
        extra["wrapped_bits"] = wrapped
    return Comparison(
        total=total,
        mismatched=mismatched,
        exact=exact,
        max_abs=float(diff.max()),
        max_rel=max_rel,
        max_ulp=max_ulp,
        median_rel=median_rel,
        mean_rel=mean_rel,
        nan=nan,
        posinf=posinf,
        neginf=neginf,
        lost=lost,
        ulp_hist=hist,
        first_bad=first,
        bad=bad,
        **info,
        **extra,
    )


def _instead(
    out: Any, ref: Any, bad: Any, dtype: str, atol: float | None, rtol: float | None, rel: Any, median_rel: float | None
) -> dict[str, Any]:
    """What the output holds instead (sentinel, zeros, the reference transposed or shifted), the bits it
    keeps and how the error grows along the last axis."""
    extra: dict[str, Any] = {}
    if bad.any():
        extra["sentinel"] = count_sentinel(out, bad, dtype)
        zero = (out == 0) & (ref != 0) & bad
        extra["zeros"] = int(zero.sum())
        extra["transposed"] = is_transposed(out, ref, atol, rtol)
        shift = find_shift(out, ref, atol, rtol) if not extra["transposed"] else None
        if shift is not None:
            extra["shift"], extra["shift_axis"] = shift
        elif rel is not None and atol is not None and rtol is not None and not extra["transposed"]:
            extra["segment"] = find_segment(out, ref, bad, atol, rtol)
        if rel is not None and not extra["transposed"] and "shift" not in extra:
            found = find_scale(out, ref, bad)
            if found is not None:
                extra["scale"], extra["scale_by_column"] = found
    if median_rel is not None:
        extra["precision_bits"] = _bits(median_rel, dtype)
    if rel is not None and ref.ndim >= 1 and ref.shape[-1] >= 8:
        extra["growth_position"] = _growth_along(rel, ref, dtype)
    return extra


def _bits(median_rel: float, dtype: str) -> float:
    """Significant bits the output keeps: -log2(median relative error), within 0 .. the dtype's significand."""
    cap = float(SIGNIFICAND_BITS.get(dtype, 53))
    if median_rel <= 0:
        return cap
    return round(max(0.0, min(cap, float(-np.log2(median_rel)))), 2)


def _growth_along(rel: Any, ref: Any, dtype: str) -> float | None:
    """Median relative error over the last quarter of the last axis / over its first quarter.

    Both medians get half a ULP of the dtype added, so that exact early elements (a prefix sum's
    first terms) do not make any later rounding look like infinite growth.
    """
    n = ref.shape[-1]
    q = max(1, n // 4)
    r = rel.reshape(-1, n)
    nz = ref.reshape(-1, n) != 0
    head, tail = r[:, :q][nz[:, :q]], r[:, -q:][nz[:, -q:]]
    if head.size == 0 or tail.size == 0:
        return None
    floor = 2.0 ** -SIGNIFICAND_BITS.get(dtype, 53)
    return round((float(np.median(tail)) + floor) / (float(np.median(head)) + floor), 3)
