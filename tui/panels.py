"""The detail screen's tabs as text: pure functions from a case to a ``rich.text.Text``.

Everything that came from an input (log lines, sanitizer messages, paths) is appended as plain
text (:func:`tui.text.plain`), never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from tui.model import Case
from tui.text import visible
from tui.widgets.ulp_histogram import bars

CATEGORY_STYLE = {
    "kernel-logic": "bold red",
    "environment": "bold yellow",
    "runtime-assumption": "bold magenta",
    "unknown": "bold bright_black",
    "pass": "bold green",
    "none": "bold green",
    "error": "bold red reverse",
}


def _head(t: Text, title: str) -> None:
    if t.plain:
        t.append("\n")
    t.append(title + "\n", style="bold underline")


def _para(t: Text, body: str | None, *, indent: str = "  ") -> None:
    for line in visible(body or "").splitlines() or [""]:
        t.append(indent + line + "\n")


def verdict(case: Case, *, explain: Mapping[str, Any] | None = None) -> Text:
    """What / why / fix / caveats of the best finding, the runners-up and what could not be checked.

    ``explain`` fills what the source did not keep (a results file has the fix only): the rule's
    own ``what``/``why``/``caveats`` from the rule base.
    """
    t = Text()
    t.append(f"{visible(case.id)}\n", style="bold")
    t.append(case.category, style=CATEGORY_STYLE.get(case.category, "bold"))
    t.append(f" / {visible(case.failure_mode)}")
    if case.confidence is not None:
        t.append(f"   confidence {case.confidence:.2f}")
    if case.rule:
        t.append(f"   rule {visible(case.rule)}")
    t.append("\n")
    t.append(visible(case.title) + "\n", style="italic")
    if case.origin:
        t.append(f"from {visible(case.origin)}\n", style="dim")
    if case.expected.get("category"):
        exp = case.expected
        t.append(
            f"the input's own label: {visible(str(exp.get('category')))} / {visible(str(exp.get('failure_mode')))}\n"
        )
    best = dict(case.best or {})
    for key, value in (explain or {}).items():
        if not best.get(key) and value:
            best[key] = value
    if case.best is not None:
        for key, title in (("what", "What"), ("why", "Why"), ("fix", "Fix"), ("caveats", "Caveats")):
            if best.get(key):
                _head(t, title)
                _para(t, best[key])
        refs = best.get("references") or ()
        if refs:
            _head(t, "References")
            for r in refs:
                _para(t, f"- {r}")
    elif case.category == "unknown":
        _head(t, "No verdict")
        _para(t, "kdiag abstained: " + ("no rule matched." if not case.findings else "the candidates below are too weak "
                                         "or name different owners."))  # fmt: skip
    if case.cited:
        _head(
            t, "Evidence (press l for the log)" if case.best else "What the best guess rests on (press l for the log)"
        )
        for c in case.cited:
            t.append(f"  line {c.line:>5} ", style="bold")
            t.append(f"[{visible(c.source)}] ", style="cyan")
            t.append(visible(c.text) + "\n")
    if case.runners_up:
        _head(t, "Runners-up")
        for f in case.runners_up:
            conf = f.get("confidence")
            t.append(f"  {visible(str(f.get('category')))} / {visible(str(f.get('failure_mode')))}")
            t.append(f"  {conf:.2f}" if isinstance(conf, int | float) else "")
            t.append(f"  {visible(str(f.get('rule')))}\n", style="dim")
    _head(t, "Could not check")
    if case.unchecked:
        for u in case.unchecked:
            _para(t, f"- {u}")
    else:
        _para(t, "- nothing: every source a relevant rule needs was there")
    if case.warnings or case.errors:
        _head(t, "Warnings")
        for w in (*case.errors, *case.warnings):
            _para(t, f"- {w}")
    return t


def _facts(ev: Mapping[str, Any] | None, key: str) -> Mapping[str, Any] | None:
    value = (ev or {}).get(key)
    return value if isinstance(value, Mapping) else None


def _kv(t: Text, d: Mapping[str, Any], *, skip: tuple[str, ...] = ("lines", "records")) -> None:
    for k, v in d.items():
        if k in skip or v in (None, (), [], {}, "", False, 0):
            continue
        t.append(f"  {k:<28}", style="bold")
        t.append(visible(str(v)) + "\n")


def sanitizer(case: Case) -> Text:
    t = Text()
    facts = _facts(case.evidence, "sanitizer")
    if facts is None:
        t.append("No compute-sanitizer records.\n", style="bold")
        t.append("could not check: no sanitizer run (re-run with memcheck or racecheck: press r)\n")
        return t
    _head(t, f"compute-sanitizer ({visible(str(facts.get('tool') or '?'))})")
    _kv(t, facts)
    records = facts.get("records") or ()
    _head(t, f"Records ({len(records)})")
    for r in records:
        if not isinstance(r, Mapping):
            continue
        t.append(f"  {visible(str(r.get('kind')))}", style="bold red" if r.get("severity") == "error" else "yellow")
        if r.get("log_line"):
            t.append(f"  (log line {r['log_line']})", style="dim")
        t.append("\n")
        for k in ("message", "access", "space", "size", "address", "kernel", "thread", "block", "source", "allocation"):
            if r.get(k) not in (None, ""):
                t.append(f"      {k}: ", style="dim")
                t.append(visible(str(r[k])) + "\n")
    return t


def environment(case: Case) -> Text:
    t = Text()
    gpu = _facts(case.evidence, "gpu")
    env = _facts(case.evidence, "env")
    machine = (case.run or {}).get("machine")
    if machine:
        _head(t, "Machine")
        _para(t, str(machine))
    if gpu:
        _head(t, "GPU snapshot (NVML)")
        _kv(t, gpu)
    if env:
        _head(t, "Environment messages in the log")
        _kv(t, env)
    if not t.plain:
        t.append("No environment snapshot.\n", style="bold")
        t.append("could not check: no NVML/environment snapshot (kdiag env --format json, or kdiag run)\n")
    return t


def ulp_hist(numerics: Mapping[str, Any]) -> dict[str, int]:
    h = numerics.get("ulp_hist")
    if isinstance(h, Mapping):
        return {str(k): int(v) for k, v in h.items()}
    if isinstance(h, list | tuple):
        from tui.model import ULP_BUCKETS

        return {b: int(c) for b, c in zip(ULP_BUCKETS, h, strict=False)}
    return {}


def numerics(case: Case, *, width: int = 40) -> Text:
    t = Text()
    n = (case.run or {}).get("numerics") or _facts(case.evidence, "numerics")
    if not isinstance(n, Mapping):
        t.append("No output comparison.\n", style="bold")
        t.append("could not check: no output comparison against a reference (kdiag run)\n")
        return t
    _head(t, "Error figures")
    for k in ("mismatched", "total", "fraction", "max_abs", "max_rel", "max_ulp", "median_rel", "dtype",
              "precision_bits", "verdict_note"):  # fmt: skip
        if n.get(k) is not None:
            t.append(f"  {k:<16}", style="bold")
            t.append(visible(str(n[k])) + "\n")
    _head(t, "Where the errors are")
    where = [f"where: {n.get('where') or '-'}"]
    for k in ("tail_blocks", "tail_axis", "period", "bad_rows", "bad_cols", "transposed", "shift", "sentinel_elems",
              "zero_elems", "nan_new", "posinf_new", "neginf_new", "nonfinite_lost", "error_grows"):  # fmt: skip
        if n.get(k) not in (None, 0, False, [], ()):
            where.append(f"{k}: {n[k]}")
    for w in where:
        _para(t, w)
    _head(t, "ULP histogram")
    hist = ulp_hist(n)
    if hist:
        for line in bars(hist, width=width):
            t.append("  " + line + "\n")
    else:
        _para(t, "none (no float output compared)")
    sizes = [s for s in (case.run or {}).get("sizes") or () if isinstance(s, Mapping)]
    if sizes:
        _head(t, "Sizes")
        for s in sizes:
            _para(t, f"{s.get('label')}: {'ok' if s.get('ok') else 'FAIL'}")
    return t


def probes(case: Case) -> Text:
    t = Text()
    p = (case.run or {}).get("probes")
    if not isinstance(p, Mapping):
        t.append("No probe matrix.\n", style="bold")
        t.append("Probes run with kdiag run (--probes quick|full); press r to re-run with probes full.\n")
        return t
    rows = [r for r in p.get("probes") or () if isinstance(r, Mapping)]
    _head(t, f"Probes ({p.get('level')}, {len(rows)} in {p.get('took_s')} s)")
    t.append(f"  {'VERDICT':<10} {'KIND':<16} {'PROBE':<34} DETAIL\n", style="bold")
    for r in rows:
        v = str(r.get("verdict"))
        style = "green" if v == "ok" else ("dim" if v.startswith("skipped") else "bold red")
        t.append(f"  {visible(v)[:10]:<10} ", style=style)
        t.append(f"{visible(str(r.get('kind')))[:16]:<16} {visible(str(r.get('label')))[:34]:<34} ")
        t.append(visible(str(r.get("detail") or "")) + "\n")
    for note in p.get("notes") or ():
        _para(t, f"note: {note}")
    shrink = (case.run or {}).get("shrink")
    if isinstance(shrink, Mapping):
        _head(t, "Shrink")
        _kv(t, {k: v for k, v in shrink.items() if k in ("source", "failure", "original", "smallest", "repro")})
    return t


def rungs(case: Case) -> Text:
    t = Text()
    run = case.run or {}
    rs = [r for r in run.get("rungs") or () if isinstance(r, Mapping)]
    if not rs:
        t.append("No ladder: these results come from a log, not a controlled run.\n", style="bold")
        t.append("Press r to run the target with kdiag run (when the case came from a run directory).\n")
        return t
    _head(t, "Ladder rungs that ran")
    for r in rs:
        ex = "timed out" if r.get("timed_out") else (r.get("signal") or f"exit {r.get('exit_code')}")
        t.append(f"  {r.get('n')} {visible(str(r.get('name'))):<18}", style="bold")
        t.append(f" {ex:<10} {float(r.get('duration_s') or 0):>7.1f} s  ")
        t.append(f"{visible(str(r.get('category')))} / {visible(str(r.get('failure_mode')))}")
        t.append("  explained\n" if r.get("explained") else "\n", style="green")
        if r.get("why"):
            _para(t, f"why: {r['why']}", indent="      ")
    if run.get("rungs_unavailable"):
        _head(t, "Could not run")
        for u in run["rungs_unavailable"]:
            _para(t, f"- {u}")
    return t
