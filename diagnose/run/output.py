"""What ``kdiag run`` prints: a readable report, or one JSON object (``--format json``)."""

from __future__ import annotations

import textwrap
from typing import Any, TextIO

from diagnose.run.result import RunResult

VERDICT_WORDS = {
    "pass": "PASS",
    "fail": "FAIL",
    "assumption": "PASS at the declared sizes, but an assumption broke",
    "no-result": "NO RESULT (could not run here)",
}


def _headline(res: RunResult) -> tuple[str, str, str | None, float | None, str]:
    """(category, failure_mode, rule, confidence, title) as the report states them."""
    d = res.diagnosis
    if res.verdict == "pass":
        return "none", "none", None, None, pass_title(res) if res.sizes else "ran cleanly"
    if d is None:
        return "unknown", "unmatched", None, None, "no diagnosis"
    title = d.title
    if res.verdict == "no-result" and res.cannot_run:
        # could not run here: the environment as information, with what was still checked
        title = "; ".join([*res.checked, res.cannot_run])
        return "environment", res.cannot_run_mode or "no-gpu-visible", None, None, title
    if res.verdict == "no-result" and d.best is None:
        title = next((n for n in res.notes if n.startswith("compiled for")), "no result to check")
        if res.target.kind == "cuda-file" and res.evidence.run is not None and not res.evidence.run.gpu_present:
            # compiled cleanly, nothing ran: not a failure of any owner, and not a pass either
            return "none", "not-run", None, None, title
    return d.category, d.failure_mode, d.rule, d.confidence, title


def to_dict(res: RunResult) -> dict[str, Any]:
    category, mode, rule, confidence, title = _headline(res)
    d = res.diagnosis
    best = d.best if d and res.verdict != "pass" else None
    run = res.evidence.run
    return {
        "verdict": res.verdict,
        "category": category,
        "failure_mode": mode,
        "rule": rule,
        "confidence": confidence,
        "title": title,
        "findings": [f.to_dict() for f in d.findings] if d else [],
        "evidence": [c.to_dict() for c in best.evidence] if best else [],
        "fix": best.fix if best else None,
        "unchecked": list(d.unchecked) if d else [],
        "run_dir": str(res.run_dir),
        "run_id": res.run_id,
        "target": {
            "kind": res.target.kind,
            "path": str(res.target.path) if res.target.path else None,
            "reference": str(res.target.reference) if res.target.reference else None,
            "argv": list(res.target.argv),
            "uses_triton": res.target.uses_triton,
        },
        "device": run.device if run else None,
        "interpreter": run.interpreter if run else False,
        "target_gpu": run.target_gpu if run else None,
        "sizes": [s.to_dict() for s in res.sizes],
        "rungs": [r.to_dict() for r in res.rungs],
        "rungs_unavailable": list(run.rungs_unavailable) if run else [],
        "numerics": numerics_summary(res),
        "probes": probes_summary(res),
        "shrink": res.shrunk.to_dict() if res.shrunk is not None else None,
        "notes": list(res.notes),
        "checked": list(res.checked),
        "cannot_run": res.cannot_run,
        "machine": machine_note(res),
        "took_s": round(res.took_s, 3),
        "exit_code": res.exit_code,
    }


def machine_note(res: RunResult) -> str | None:
    """The environment as information, not as a verdict: why there is no GPU and what ran instead.

    A CPU run under the Triton interpreter is a legitimate way to check a kernel; what the machine
    lacks is said here, and only becomes a finding when a rule ties it to a failure.
    """
    gpu = res.evidence.gpu
    run = res.evidence.run
    if gpu is None or (run is not None and run.gpu_present):
        return None
    why = gpu.nvml_error or ("no GPU visible" if gpu.nvml_ok else "NVML unavailable")
    tags = [t for t in gpu.problems if t in ("no-driver", "no-nvml", "no-gpu-visible", "cuda-visible-devices-empty")]
    ran = "ran on CPU"
    compiled_only = bool(res.rungs) and all(r.name == "compile" for r in res.rungs)
    if res.target.kind == "cuda-file":
        ran = "the CUDA program was compiled and checked, not run"
    elif compiled_only:
        ran = "the submission's CUDA sources were compiled and checked, not run"
    if run is not None and run.interpreter:
        ran += ", Triton kernels under the interpreter (with kdiag's bounds checks)"
    if run is not None and run.target_gpu and res.target.kind != "cuda-file" and not compiled_only:
        ran += f", compiled for {run.target_gpu}"
    return f"no usable GPU ({why}{'; ' + ', '.join(tags) if tags else ''}) — information, not a failure: {ran}"


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def write_text(res: RunResult, out: TextIO) -> None:
    category, mode, rule, confidence, title = _headline(res)
    run = res.evidence.run
    where = (run.device if run else None) or "?"
    if run and run.interpreter:
        where += ", Triton interpreter"
    out.write(f"kdiag run: {res.target.describe()}  [{res.target.kind}, {where}]\n")
    machine = machine_note(res)
    if machine:
        out.write(f"machine: {machine}\n")
    head = VERDICT_WORDS.get(res.verdict, res.verdict.upper())
    if res.verdict == "pass":
        out.write(f"verdict: {head} — {title}\n")
    else:
        conf = f" ({confidence:.2f}, {rule})" if confidence is not None and rule else ""
        out.write(f"verdict: {head} — {category} / {mode}{conf}\n  {title}\n")
    for s in res.sizes:
        if s.ok:
            leaf = max(s.leaves, key=lambda x: (x.max_ulp or 0.0, x.max_abs or 0.0), default=None)
            out.write(f"  size {s.label}: ok  {_ok_figures(leaf) if leaf else ''}\n")
            continue
        if res.cannot_run and s.missing and not s.kernel_error:
            out.write(f"  size {s.label}: not run here\n")
            continue
        why = s.kernel_error or s.reference_error or s.invalid or ("no output" if s.missing else "")
        bad = [leaf for leaf in s.leaves if not leaf.ok]
        detail: list[str] = []
        if bad and not why:
            why = bad[0].problem or _bad_figures(bad[0])
            detail = [] if bad[0].problem else _bad_detail(bad[0])
        flags = []
        if s.mutated:
            flags.append(f"changed its inputs {', '.join(s.mutated)}")
        if s.unwritten:
            flags.append("left output unwritten: " + ", ".join(f"{k} {v.get('count')}/{v.get('total')} ({v.get('where')})"
                                                           for k, v in s.unwritten.items()))  # fmt: skip
        out.write(f"  size {s.label}: FAIL  {why}{'; ' if why and flags else ''}{'; '.join(flags)}\n")
        out.writelines(f"    {line}\n" for line in detail)
    d = res.diagnosis
    best = d.best if d and res.verdict != "pass" else None
    if res.verdict == "no-result" and res.cannot_run:
        best = None  # the environment is information here, not a finding to fix in the kernel
        for done in res.checked:
            out.write(f"checked: {done}\n")
        if d is not None and d.best is not None:
            out.write(f"the run stopped at: {d.category} / {d.failure_mode} ({d.rule}): {d.title}\n")
    if best is not None:
        for c in best.evidence:
            out.write(f"  line {c.line:>4} [{c.source}]: {c.text[:110]}\n")
        if best.facts:
            facts = "; ".join(f"{k} = {v}" for k, v in best.facts)
            out.write(textwrap.fill(facts, 100, initial_indent="In this log: ", subsequent_indent="      ") + "\n")
        out.write(textwrap.fill(best.what, 100, initial_indent="what: ", subsequent_indent="      ") + "\n")
        out.write(textwrap.fill(best.fix, 100, initial_indent="fix:  ", subsequent_indent="      ") + "\n")
        for alt in d.alternatives[:3] if d else ():
            out.write(f"or:   {alt.category} / {alt.failure_mode} ({alt.confidence:.2f}, {alt.rule})\n")
    write_probes(res, out)
    out.write("rungs: " + "; ".join(
        f"{r.n} {r.name} ({_exit(r)}, {r.duration_s:.1f} s)" for r in res.rungs
    ) + "\n")  # fmt: skip
    if run and run.rungs_unavailable:
        out.write(f"could not run: {'; '.join(run.rungs_unavailable)}\n")
    for note in res.notes:
        out.write(f"note: {note}\n")
    out.write(f"run dir: {res.run_dir}\n")


# --- numerics: the figures of the comparison (diagnose/run/compare.py, numerics.py) ---------------

ULP_BUCKETS = ("0", "1", "2-4", "5-16", "17-256", ">256", "nan/inf")  # diagnose.run.numerics.ULP_BUCKETS


def pass_title(res: RunResult) -> str:
    """A pass says whether the outputs are exact or differ within what the dtype explains (expected variation)."""
    n = res.evidence.numerics
    if n is not None and n.expected_variation:
        return (
            f"expected variation: every declared size within tolerance ({n.dtype or '?'}: max abs "
            f"{_fmt(n.max_abs)}, max ULP {_fmt(n.max_ulp)})"
        )
    if n is not None and n.exact:
        return "every declared size matches the reference exactly"
    return "every declared size matches the reference"


def numerics_summary(res: RunResult) -> dict[str, Any] | None:
    """The numerics facts of the run (rule symbols numerics_*), with the ULP histogram's buckets named."""
    n = res.evidence.numerics
    if n is None or n.total is None:
        return None
    import dataclasses

    d = {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(n).items() if k != "lines"}
    d["ulp_hist"] = dict(zip(ULP_BUCKETS, n.ulp_hist, strict=False)) if n.ulp_hist else None
    d["verdict_note"] = "expected variation" if n.expected_variation else ("exact" if n.exact else None)
    return d


def _hist(hist: tuple[int, ...]) -> str:
    return " ".join(f"{b}:{c}" for b, c in zip(ULP_BUCKETS, hist, strict=False) if c)


def _ok_figures(leaf: Any) -> str:
    if leaf.max_abs in (None, 0.0) and not leaf.max_ulp:
        return "exact"
    text = f"max abs {_fmt(leaf.max_abs)}, max rel {_fmt(leaf.max_rel)}, max ulp {_fmt(leaf.max_ulp)}"
    return text + (f"  [ulp {_hist(leaf.ulp_hist)}]" if leaf.ulp_hist else "")


def _bad_figures(b: Any) -> str:
    special = [f"{c} {w}" for c, w in ((b.nan_count, "NaN"), (b.posinf_count, "+Inf"), (b.neginf_count, "-Inf"),
                                       (b.lost_count, "ref NaN/Inf lost")) if c]  # fmt: skip
    frac = f" ({100 * b.fraction:.3g}%)" if b.fraction is not None else ""
    head = f"{b.mismatched}/{b.total}{frac} outside atol {_fmt(b.atol)} rtol {_fmt(b.rtol)}, where: {b.where}; "
    nonfinite = (b.nan_count or 0) + (b.posinf_count or 0) + (b.neginf_count or 0) + (b.lost_count or 0)
    if special and nonfinite >= (b.mismatched or 0) and not b.max_abs:
        # every bad element is NaN or Inf: the distances, taken over finite elements, would read 0
        return head + "all of them non-finite: " + ", ".join(special)
    return (
        head
        + f"max abs {_fmt(b.max_abs)}, max rel {_fmt(b.max_rel)}, max ulp {_fmt(b.max_ulp)}"
        + (f", {', '.join(special)}" if special else "")
    )


def _bad_detail(b: Any) -> list[str]:
    lines = []
    if b.ulp_hist:
        lines.append(f"ulp histogram: {_hist(b.ulp_hist)}")
    what = []
    if b.tail_blocks:
        axis = "" if b.tail_axis is None else f" along axis {b.tail_axis}"
        what.append(f"tail{axis} past the last full block of {', '.join(map(str, b.tail_blocks))}")
    if b.period:
        what.append(f"repeats every {b.period} elements" + ("" if b.period_axis is None else " along the last axis"))
    if b.bad_rows or b.bad_cols:
        what.append(f"{b.bad_rows} whole rows, {b.bad_cols} whole columns wrong")
    if b.transposed:
        what.append("the output is the reference transposed")
    if b.shift is not None:
        what.append(f"the output is the reference shifted by {b.shift} along axis {b.shift_axis}")
    if b.sentinel_count:
        what.append(f"{b.sentinel_count} never written (allocation sentinel)")
    if b.zero_count:
        what.append(f"{b.zero_count} are 0 where the reference is not")
    if b.wrapped_bits is not None:
        what.append(f"each wrong element is off by a multiple of 2^{b.wrapped_bits} (an int{b.wrapped_bits} wrapped)")
    if b.scale is not None:
        offset = " plus an offset per column" if b.scale_by_column else ""
        what.append(f"each wrong element is the reference × {b.scale:g}{offset}")
    if b.precision_bits is not None and b.dtype and (b.median_rel or 0) > 0:
        what.append(f"keeps ~{b.precision_bits:.1f} significant bits (median rel {_fmt(b.median_rel)})")
    if what:
        lines.append("; ".join(what))
    if b.first_bad_at:
        pairs = [f"{list(i)} got {g} expected {e}" for i, g, e in
                 zip(b.first_bad_at, b.first_bad_got, b.first_bad_expected, strict=False)][:4]  # fmt: skip
        lines.append("first bad: " + "; ".join(pairs))
    return lines


def _exit(r: Any) -> str:
    if r.timed_out:
        return "timed out"
    if r.signal:
        return r.signal
    return f"exit {r.exit_code}" if r.exit_code is not None else "not run"


# --- probes: inputs outside the declared contract (diagnose/run/probes.py, shrink.py) -------------


def probes_summary(res: RunResult) -> dict[str, Any] | None:
    m = res.probes
    if m is None:
        return None
    d = m.to_dict()
    d["failed"] = [r.probe.label for r in m.failures]
    return d


def _declared_failures(res: RunResult) -> set[str]:
    """How the declared sizes failed, in the probes' words: ``oob``, ``mismatch``, ``crash``."""
    run = res.evidence.run if res.evidence is not None else None
    kinds = {"oob"} if run is not None and (run.oob_loads or run.oob_stores) else set()
    for s in res.sizes:
        if s.kernel_error or s.missing:
            kinds.add("crash")
        elif not s.ok:
            kinds.add("mismatch")
    return kinds


def _probes_add_to(res: RunResult) -> bool:
    """Whether a failing probe fails otherwise than the declared sizes do: a kernel that already reads out of bounds
    or computes wrong values at a size it declares, and does the same on the probes' inputs, shows nothing new
    outside its contract (a reviewer read the line as a second owner)."""
    m = res.probes
    declared = _declared_failures(res)
    return m is not None and any(r.verdict not in declared for r in m.failures)


def write_probes(res: RunResult, out: TextIO) -> None:
    """The probe matrix, one line per probe, and the probe finding when the contract's failure leads."""
    m = res.probes
    if m is not None and m.results:
        failed = len(m.failures)
        out.write(f"probes ({m.level}, {len(m.results)} in {m.took_s:.1f} s, {failed} failed):\n")
        for line in _probe_lines(m):
            out.write(line + "\n")
        d = res.diagnosis
        probe_alt = [f for f in (d.findings if d else ()) if f.speaks_about == "probe"]
        if res.verdict == "fail" and probe_alt and _probes_add_to(res):
            f = probe_alt[0]
            out.write(f"  outside the contract too: {f.category} / {f.failure_mode} ({f.confidence:.2f}, {f.rule})\n")
    elif m is not None:
        for note in m.notes:
            out.write(f"probes: {note}\n")
    sh = res.shrunk
    if sh is not None:
        for line in sh.lines():
            out.write(line + "\n")


def _probe_lines(m: Any) -> list[str]:
    """Failures one line each; passing probes folded into one line per kind."""
    lines = []
    ok: dict[str, list[str]] = {}
    for r in m.results:
        if r.verdict == "ok":
            ok.setdefault(r.probe.kind, []).append(r.probe.label)
            continue
        mark = {"skipped-outside-contract": "skipped"}.get(r.verdict, r.verdict.upper())
        lines.append(f"  {mark:<8} {r.probe.kind:<13} {r.probe.label}: {r.detail}"[:160])
    for kind, labels in ok.items():
        shown = ", ".join(labels[:6]) + (f" (+{len(labels) - 6})" if len(labels) > 6 else "")
        lines.append(f"  {'ok':<8} {kind:<13} {shown}"[:160])
    return lines
