"""What the TUI shows: one :class:`Case` per diagnosed input, whatever it was read from.

A case is built from a :class:`diagnose.report.Report` (logs classified here), from a line of
``kdiag classify --format jsonl`` (results written earlier), or from a run directory's
``report.json`` and ``evidence.json`` (``kdiag run``).  Screens read cases only, so every source
looks the same to them, and tests build cases from data without a GPU.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

#: the buckets of a numerics ULP histogram (diagnose.run.numerics.ULP_BUCKETS)
ULP_BUCKETS = ("0", "1", "2-4", "5-16", "17-256", ">256", "nan/inf")
CATEGORIES = ("kernel-logic", "environment", "runtime-assumption", "unknown", "pass", "error", "none")


@dataclass(frozen=True)
class Cited:
    line: int
    text: str
    source: str


@dataclass(frozen=True)
class Case:
    id: str
    status: str  # diagnosed | unknown | pass | error (classify); pass | fail | assumption | no-result (run)
    category: str
    failure_mode: str
    confidence: float | None
    rule: str | None
    title: str
    origin: str | None = None
    log: str | None = None  # the input text, when the source kept it
    cited: tuple[Cited, ...] = ()
    findings: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)  # best first; full when known
    unchecked: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    evidence: Mapping[str, Any] | None = field(default=None, compare=False)  # Evidence.to_dict()
    run: Mapping[str, Any] | None = field(default=None, compare=False)  # a run's report.json
    expected: Mapping[str, Any] = field(default_factory=dict, compare=False)  # the input's own label
    label_state: str = ""  # confirmed | corrected (a person's label), or "" when unlabelled
    label_category: str = ""  # what the person said (with label_state)
    label_mode: str = ""
    report: Any = field(default=None, compare=False, repr=False)  # the Report, when classified here
    kb_ref: str | None = None  # the knowledge-base entry's fingerprint (kdiag tui --kb)

    @property
    def abstained(self) -> bool:
        return self.category == "unknown" and bool(self.findings)

    @property
    def best(self) -> Mapping[str, Any] | None:
        """The finding the verdict rests on (None when kdiag abstained or nothing matched)."""
        return None if self.abstained or not self.findings else self.findings[0]

    @property
    def runners_up(self) -> tuple[Mapping[str, Any], ...]:
        return self.findings if self.abstained else self.findings[1:]

    @property
    def label_text(self) -> str:
        """The label column: a person's label, else how the input's own label compares."""
        if self.label_state:
            return self.label_state
        cat = self.expected.get("category")
        if not cat:
            return ""
        return "expected ✓" if cat == self.category or (cat == "none" and self.category == "pass") else "expected ✗"

    def with_label(self, state: str, category: str = "", mode: str = "") -> Case:
        return replace(self, label_state=state, label_category=category, label_mode=mode)


# --- from a Report (classified here) --------------------------------------------------------------


def from_report(report: Any) -> Case:
    """A case from a :class:`diagnose.report.Report` (keeps the report, for the knowledge base)."""
    d = report.diagnosis
    findings: tuple[Mapping[str, Any], ...] = tuple(f.to_dict() for f in d.findings) if d else ()
    best = d.best if d else None
    if best is None and d is not None and d.findings:
        best = d.findings[0]  # kdiag abstained: the log still shows what its best guess rests on
    ev = report.evidence
    return Case(
        id=report.id,
        status=report.status,
        category=report.category,
        failure_mode=report.failure_mode,
        confidence=d.confidence if d else None,
        rule=d.rule if d else None,
        title=d.title if d else (report.errors[0] if report.errors else report.status),
        origin=report.origin,
        log=ev.log.text if ev is not None else None,
        # an abstention no rule explains cites the lines it read as the failure (Report.seen_lines)
        cited=tuple(Cited(c.line, c.text, c.source) for c in (best.evidence if best else report.seen_lines)),
        findings=findings,
        unchecked=tuple(d.unchecked) if d else (),
        warnings=tuple(report.warnings) + tuple(d.rule_errors if d else ()),
        errors=tuple(report.errors),
        evidence=ev.to_dict() if ev is not None else None,
        expected=dict(report.label),
        report=report,
    )


# --- from `kdiag classify --format jsonl` ----------------------------------------------------------

RESULT_KEYS = frozenset({"id", "status", "category", "failure_mode"})


def is_result(d: Mapping[str, Any]) -> bool:
    """A line of kdiag's own output (as opposed to an input record to classify)."""
    return set(d) >= RESULT_KEYS and "log" not in d and "stdout" not in d and "stderr" not in d


def from_result(d: Mapping[str, Any], *, line: int | None = None) -> Case:
    """A case from one ``kdiag classify --format jsonl`` object (the log itself is not in it).

    JSON gives plain dicts: the checks say ``dict``, not ``Mapping`` (an ABC check costs ten times
    more, and this runs for every line of a 10,000-line results file).
    """
    cited = tuple(
        Cited(int(c.get("line") or 0), str(c.get("text") or ""), str(c.get("source") or "log"))
        for c in d.get("evidence") or ()
        if isinstance(c, dict)
    )
    best: dict[str, Any] = {}
    if d.get("rule") and d.get("category") not in ("unknown", "error", "pass"):
        best = {k: d.get(k) for k in ("rule", "category", "failure_mode", "confidence", "title", "fix")}
        best["evidence"] = [{"line": c.line, "text": c.text, "source": c.source} for c in cited]
    alts = tuple(a for a in d.get("alternatives") or () if isinstance(a, dict))
    findings = alts if d.get("category") == "unknown" else ((best,) if best else ()) + alts
    record = d.get("evidence_record")
    label = d.get("label")
    conf = d.get("confidence")
    return Case(
        id=str(d.get("id")),
        status=str(d.get("status")),
        category=str(d.get("category")),
        failure_mode=str(d.get("failure_mode")),
        confidence=float(conf) if isinstance(conf, (int, float)) else None,
        rule=d.get("rule") if isinstance(d.get("rule"), str) else None,
        title=str(d.get("title") or ""),
        origin=d.get("origin") or (f"line {line}" if line else None),
        cited=cited,
        findings=findings,
        unchecked=tuple(str(u) for u in d.get("unchecked") or ()),
        warnings=tuple(str(w) for w in (d.get("warnings") or ())) + tuple(str(e) for e in d.get("rule_errors") or ()),
        errors=tuple(str(e) for e in d.get("errors") or ()),
        evidence=record if isinstance(record, dict) else None,
        expected=label if isinstance(label, dict) else {},
    )


# --- from a run directory (`kdiag run`) -----------------------------------------------------------


def from_run(report: Mapping[str, Any], evidence: Mapping[str, Any] | None = None) -> Case:
    """A case from a run directory's ``report.json`` (and ``evidence.json`` when there is one)."""
    ev = (evidence or {}).get("evidence") if evidence else None
    ev = ev if isinstance(ev, Mapping) else None
    log = None
    if ev is not None and isinstance(ev.get("log"), Mapping):
        log = ev["log"].get("text")
    cited = tuple(
        Cited(int(c.get("line") or 0), str(c.get("text") or ""), str(c.get("source") or "log"))
        for c in report.get("evidence") or ()
        if isinstance(c, Mapping)
    )
    target = report.get("target") or {}
    conf = report.get("confidence")
    return Case(
        id=str(report.get("run_id") or Path(str(report.get("run_dir") or "run")).name),
        status=str(report.get("verdict") or "no-result"),
        category=str(report.get("category") or "unknown"),
        failure_mode=str(report.get("failure_mode") or "unmatched"),
        confidence=float(conf) if isinstance(conf, int | float) else None,
        rule=report.get("rule"),
        title=str(report.get("title") or ""),
        origin=str(target.get("path") or " ".join(target.get("argv") or ()) or report.get("run_dir") or ""),
        log=log if isinstance(log, str) else None,
        cited=cited,
        findings=tuple(f for f in report.get("findings") or () if isinstance(f, Mapping)),
        unchecked=tuple(str(u) for u in report.get("unchecked") or ()),
        warnings=tuple(str(n) for n in report.get("notes") or ()),
        evidence=ev,
        run=report,
    )


def read_run_dir(path: Path) -> Case:
    report = json.loads((path / "report.json").read_text(encoding="utf-8"))
    evidence = None
    ev_path = path / "evidence.json"
    if ev_path.exists():
        try:
            evidence = json.loads(ev_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            evidence = None
    return from_run(report, evidence)


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and (path / "report.json").is_file()


# --- loading what `kdiag tui` was given -----------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    cases: tuple[Case, ...]
    source: str  # what was opened, for the title bar
    problems: tuple[str, ...] = ()  # lines that could not be read


def _results_file(path: Path) -> bool:
    """A .jsonl file whose first object is a kdiag result."""
    if path.suffix not in (".jsonl", ".ndjson") or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    d = json.loads(line)
                    return isinstance(d, dict) and is_result(d)
    except (OSError, ValueError):
        return False
    return False


def read_results(path: Path) -> Batch:
    cases: list[Case] = []
    problems: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except ValueError as exc:
                problems.append(f"{path}:{n}: not JSON ({exc})")
                continue
            if not isinstance(d, dict) or not is_result(d):
                problems.append(f"{path}:{n}: not a kdiag result")
                continue
            cases.append(from_result(d, line=n))
    return Batch(tuple(cases), str(path), tuple(problems))


def classify_paths(paths: list[str], *, rules: Any = None) -> Batch:
    """Logs and record files classified here (``diagnose.inputs.read_inputs`` → ``classify_records``)."""
    from diagnose.classify import classify_records
    from diagnose.inputs import read_inputs

    cases = [from_report(r) for r in classify_records(read_inputs(paths), rules=rules, text_prior=True)]
    return Batch(tuple(cases), " ".join(paths))


def load(paths: Iterable[str], *, rules: Any = None) -> Batch:
    """Results, a run directory (or a folder of them), or logs to classify."""
    paths = list(paths)
    if len(paths) == 1:
        p = Path(paths[0])
        if is_run_dir(p):
            return Batch((read_run_dir(p),), str(p))
        if p.is_dir():
            runs = sorted(d for d in p.iterdir() if is_run_dir(d))
            if runs:
                return Batch(tuple(read_run_dir(d) for d in runs), str(p))
        if _results_file(p):
            return read_results(p)
    return classify_paths(paths, rules=rules)
