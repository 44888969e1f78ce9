"""Judging each probe: the children's records for it against the reference's, with the probe's tolerance."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from diagnose.run import arrays as A
from diagnose.run import compare as C
from diagnose.run.probe_types import Batch, Matrix, Probe, ProbeResult, Runner, label_size, tensor_names

# --- judging them --------------------------------------------------------------------------------


def tolerance_of(probe: Probe, base: Any) -> Any:
    """The tolerance a probe is judged with: the declared one, loosened where the probe changes the scale."""
    values = probe.values or {}
    if not values or not ({"scale", "near_max", "cast"} & set(values)):
        return base
    out: dict[str, dict[str, float]] = {}
    for dtype, default in C.DEFAULT_TOLERANCE.items():
        atol, rtol = C.tolerance_for(dtype, base) or default
        if "scale" in values:
            atol *= float(values["scale"])
        elif "near_max" in values:
            atol = math.inf  # only NaN / Inf the reference does not have count
        elif "cast" in values:
            atol, rtol = max(atol, default[0]), max(rtol, default[1])
        out[dtype] = {"atol": atol, "rtol": rtol}
    return out


def judge(probe: Probe, batch: Batch, tolerance: Any) -> ProbeResult:
    ref = batch.reference.get(probe.label)
    inp = next((e for e in batch.manifest.get("sizes", []) if e.get("label") == probe.label), None)
    if inp is None or inp.get("error"):
        why = (inp or {}).get("error") or "no inputs were made"
        return ProbeResult(probe, "skipped-outside-contract", {}, f"make_inputs does not accept it: {why}"[:300])
    if ref is None or ref.get("error"):
        why = (ref or {}).get("error") or "the reference wrote no result"
        return ProbeResult(probe, "skipped-outside-contract", {}, f"the reference rejects it: {why}"[:300])
    rec = batch.kernel.get(probe.label)
    if rec is None:
        return ProbeResult(
            probe, "crash", {"lost": True}, batch.lost.get(probe.label, "the kernel child left no record")
        )
    figures: dict[str, Any] = {}
    oob = rec.get("oob") if isinstance(rec.get("oob"), Mapping) else None
    canary = [c for c in rec.get("canary") or [] if isinstance(c, Mapping)]
    if oob:
        figures.update(oob_loads=oob.get("loads", 0), oob_stores=oob.get("stores", 0), oob_arg=oob.get("arg"),
                       oob_distance_elems=oob.get("distance_elems"))  # fmt: skip
    if canary:
        figures["canary"] = [f"{c.get('name')} {c.get('side')}" for c in canary]
    if rec.get("error"):
        err = str(rec["error"])
        figures["error"] = err[:200]
        if rec.get("raised_in_submission") and err.split(":")[0] in ("AssertionError", "NotImplementedError"):
            return ProbeResult(probe, "rejected", figures, f"the submission refuses it: {err[:200]}")
        return ProbeResult(probe, "crash", figures, f"the kernel raised: {err[:200]}")
    folder = Path(str(rec.get("_folder", "")))
    res = C.compare_size(probe.label, rec, folder / "outputs" / str(rec.get("dir")), ref,
                         batch.reference_dir / str(ref.get("dir")), tolerance)  # fmt: skip
    if probe.kind == "dtype":
        res = _cast_compare(res, rec, folder / "outputs" / str(rec.get("dir")), ref,
                            batch.reference_dir / str(ref.get("dir")), tolerance, figures)  # fmt: skip
    if isinstance(rec.get("check"), Mapping):  # the problem's own check_implementation decides
        res = C.checked(res, rec["check"])
    bad = [leaf for leaf in res.leaves if not leaf.ok]
    worst = bad[0] if bad else max(res.leaves, key=lambda x: x.max_abs or 0.0, default=None)
    if worst is not None:
        figures.update(mismatched=worst.mismatched, total=worst.total, max_abs=worst.max_abs,
                       max_ulp=worst.max_ulp, where=None if worst.ok else worst.where)  # fmt: skip
        if worst.first_bad is not None:
            figures["first_bad"] = worst.first_bad
        if worst.nan_count:
            figures["nan"] = worst.nan_count
    if res.unwritten:
        figures["unwritten"] = {k: v.get("count") for k, v in res.unwritten.items() if isinstance(v, Mapping)}
    if res.mutated:
        figures["mutated"] = list(res.mutated)
    if res.nondeterministic:
        figures["nondeterministic"] = True
    if oob or canary:
        parts = [f"{oob.get('loads', 0)} loads / {oob.get('stores', 0)} stores out of bounds"] if oob else []
        parts += ["canary hit on " + ", ".join(figures["canary"])] if canary else []
        where = "; ".join(parts)
        right = " (the in-range values are right)" if res.ok else ""
        return ProbeResult(probe, "oob", figures, where + right)
    if not res.ok:
        why = res.invalid or (bad[0].problem if bad and bad[0].problem else "")
        if bad and not why:
            b = bad[0]
            nonfinite = (b.nan_count or 0) + (b.posinf_count or 0) + (b.neginf_count or 0) + (b.lost_count or 0)
            if nonfinite >= (b.mismatched or 0) > 0 and not b.max_abs:  # every bad element NaN or Inf
                why = f"{b.mismatched}/{b.total} wrong ({b.where}), all of them NaN or Inf"
            else:
                why = f"{b.mismatched}/{b.total} wrong ({b.where}), max abs {_g(b.max_abs)}, max ulp {_g(b.max_ulp)}"
        if res.unwritten:
            why += ("; " if why else "") + "output partly unwritten"
        if res.mutated:
            why += ("; " if why else "") + f"changed its inputs {', '.join(res.mutated)}"
        return ProbeResult(probe, "mismatch", figures, why)
    if res.nondeterministic:
        return ProbeResult(probe, "ok", figures, "matches, but the bits differ between identical runs")
    return ProbeResult(probe, "ok", figures, "")


def _cast_compare(
    res: C.SizeResult,
    rec: Mapping[str, Any],
    kdir: Path,
    ref: Mapping[str, Any],
    rdir: Path,
    tol: Any,
    figures: dict[str, Any],
) -> C.SizeResult:
    """A dtype probe: an output in another dtype than the reference's is compared after the cast (a choice,
    not a failure); the values decide."""
    if not any(leaf.dtype_mismatch for leaf in res.leaves):
        return res
    leaves = []
    try:
        for leaf in res.leaves:
            if not leaf.dtype_mismatch:
                leaves.append(leaf)
                continue
            kent, rent = rec["tensors"][leaf.name], _ref_entry(ref, len(leaves))
            out, expected = A.load(kdir, kent), A.load(rdir, rent)
            figures["output_dtype"] = f"{kent['dtype']} (reference {rent['dtype']})"
            leaves.append(C.compare_arrays(out, expected, rent["dtype"], rent["dtype"], tol, name=leaf.name))
    except (A.ResultInvalid, KeyError, TypeError, ValueError):
        return res
    ok = all(leaf.ok for leaf in leaves) and not res.mutated and not res.unwritten
    return C.SizeResult(res.label, ok, leaves=tuple(leaves), mutated=res.mutated, unwritten=res.unwritten,
                        nondeterministic=res.nondeterministic, kernel_s=res.kernel_s)  # fmt: skip


def _ref_entry(ref: Mapping[str, Any], index: int) -> Any:
    names = tensor_names(ref.get("structure"))
    return ref["tensors"][names[index]]


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


# --- the whole matrix -----------------------------------------------------------------------------


def run_matrix(probes: Sequence[Probe], runner: Runner, level: str, tolerance: Any) -> Matrix:
    if not probes:
        return Matrix(level, notes=("no probe applies: no size kwargs and no tensor inputs",))
    batch = runner("probes", [p.entry() for p in probes])
    results = odd_outside_domain(tuple(judge(p, batch, tolerance_of(p, tolerance)) for p in probes))
    return Matrix(level, results, batch.took_s, batch.children)


def _changed(probe: Probe) -> tuple[str, int] | None:
    """The one size kwarg a size probe changed against its declared size, and its new value."""
    base = label_size(probe.base)
    diff = [(k, v) for k, v in probe.size.items() if isinstance(v, int) and v != base.get(k, v)]
    return diff[0] if len(diff) == 1 and base else None


def odd_outside_domain(results: tuple[ProbeResult, ...]) -> tuple[ProbeResult, ...]:
    """A size probe that set a kwarg to an odd value where the reference rejected every other odd value of it
    that was tried (two at least) and no odd value passed: odd values are outside the problem's domain (a rotary
    embedding's head dim, a complex pair's last axis), and the kernel's failure there is no assumption it broke.

    >>> def r(size, verdict): return ProbeResult(Probe(f"d={size}", "nonmultiple", "", "d=64", {"d": size}), verdict)
    >>> out = odd_outside_domain((r(63, "skipped-outside-contract"), r(65, "skipped-outside-contract"), r(1, "crash")))
    >>> out[2].verdict, out[2].detail
    ('skipped-outside-contract', 'd=1 is odd, and the reference rejects every other odd d tried (63, 65)')
    >>> odd_outside_domain((r(63, "skipped-outside-contract"), r(65, "ok"), r(1, "crash")))[2].verdict
    'crash'
    """
    odd: dict[str, list[tuple[int, ProbeResult]]] = {}
    for res in results:
        got = _changed(res.probe) if res.probe.kind in ("nonmultiple", "size-one") else None
        if got is not None and got[1] % 2:
            odd.setdefault(got[0], []).append((got[1], res))
    outside: dict[int, str] = {}
    for key, tried in odd.items():
        rejected = sorted(v for v, res in tried if res.verdict == "skipped-outside-contract")
        passed = [v for v, res in tried if res.verdict == "ok"]
        if len(rejected) < 2 or passed:
            continue
        for v, res in tried:
            if res.failed:
                others = ", ".join(map(str, (x for x in rejected if x != v)))
                outside[id(res)] = f"{key}={v} is odd, and the reference rejects every other odd {key} tried ({others})"
    if not outside:
        return results
    return tuple(
        ProbeResult(res.probe, "skipped-outside-contract", {}, outside[id(res)]) if id(res) in outside else res
        for res in results
    )
