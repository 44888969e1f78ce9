"""What ``kdiag run`` prints: a readable report, or one JSON object (``--format json``)."""

from __future__ import annotations

import textwrap
from typing import Any, TextIO

from diagnose.run.session import RunResult

VERDICT_WORDS = {
    "pass": "PASS",
    "fail": "FAIL",
    "assumption": "PASS at the declared sizes, but an assumption broke",
    "no-result": "NO RESULT",
}


def _headline(res: RunResult) -> tuple[str, str, str | None, float | None, str]:
    """(category, failure_mode, rule, confidence, title) as the report states them."""
    d = res.diagnosis
    if res.verdict == "pass":
        return "none", "none", None, None, "every declared size matches the reference" if res.sizes else "ran cleanly"
    if d is None:
        return "unknown", "unmatched", None, None, "no diagnosis"
    title = d.title
    if res.verdict == "no-result" and d.best is None:
        title = next((n for n in res.notes if n.startswith("compiled for")), "no result to check")
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
        "notes": list(res.notes),
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
    if run is not None and run.interpreter:
        ran += ", Triton kernels under the interpreter (with kdiag's bounds checks)"
    if run is not None and run.target_gpu:
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
            leaf = max(s.leaves, key=lambda x: x.max_abs or 0.0, default=None)
            extra = f"max abs {_fmt(leaf.max_abs)}, max ulp {_fmt(leaf.max_ulp)}" if leaf else ""
            out.write(f"  size {s.label}: ok  {extra}\n")
            continue
        why = s.kernel_error or s.reference_error or s.invalid or ("no output" if s.missing else "")
        bad = [leaf for leaf in s.leaves if not leaf.ok]
        if bad and not why:
            b = bad[0]
            why = b.problem or (
                f"{b.mismatched}/{b.total} wrong ({b.pattern}), max abs {_fmt(b.max_abs)}, "
                f"max rel {_fmt(b.max_rel)}, max ulp {_fmt(b.max_ulp)}"
                + (f", {b.nan_count} NaN" if b.nan_count else "")
            )
        flags = []
        if s.mutated:
            flags.append(f"changed its inputs {', '.join(s.mutated)}")
        if s.unwritten:
            flags.append("left output unwritten: " + ", ".join(f"{k} {v.get('count')}/{v.get('total')} ({v.get('where')})"
                                                           for k, v in s.unwritten.items()))  # fmt: skip
        out.write(f"  size {s.label}: FAIL  {why}{'; ' if why and flags else ''}{'; '.join(flags)}\n")
    d = res.diagnosis
    best = d.best if d and res.verdict != "pass" else None
    if best is not None:
        for c in best.evidence:
            out.write(f"  line {c.line:>4} [{c.source}]: {c.text[:110]}\n")
        out.write(textwrap.fill(best.what, 100, initial_indent="what: ", subsequent_indent="      ") + "\n")
        out.write(textwrap.fill(best.fix, 100, initial_indent="fix:  ", subsequent_indent="      ") + "\n")
        for alt in d.alternatives[:3] if d else ():
            out.write(f"or:   {alt.category} / {alt.failure_mode} ({alt.confidence:.2f}, {alt.rule})\n")
    out.write("rungs: " + "; ".join(
        f"{r.n} {r.name} ({_exit(r)}, {r.duration_s:.1f} s)" for r in res.rungs
    ) + "\n")  # fmt: skip
    if run and run.rungs_unavailable:
        out.write(f"could not run: {'; '.join(run.rungs_unavailable)}\n")
    for note in res.notes:
        out.write(f"note: {note}\n")
    out.write(f"run dir: {res.run_dir}\n")


def _exit(r: Any) -> str:
    if r.timed_out:
        return "timed out"
    if r.signal:
        return r.signal
    return f"exit {r.exit_code}" if r.exit_code is not None else "not run"
