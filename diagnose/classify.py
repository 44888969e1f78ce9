"""Classify logs: input record → collectors → Evidence → matcher → Report."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from diagnose.collectors import collect
from diagnose.evidence import Evidence
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.report import Report
from diagnose.rules import RuleSet, default_rules


def evidence_for(rec: InputRecord, errors: list[str] | None = None) -> Evidence:
    ev = collect(
        rec.text,
        id=rec.id,
        exit_code=rec.exit_code,
        signal=rec.signal,
        timed_out=rec.timed_out,
        errors=errors,
    )
    if rec.env is not None:
        ev = ev.replace(gpu=_gpu_facts(rec.env, errors))
    return ev


def _gpu_facts(snapshot: Mapping[str, Any], errors: list[str] | None) -> Any:
    try:
        from diagnose.envinfo.snapshot import gpu_facts
    except ImportError:  # pragma: no cover - the envinfo package ships with kdiag
        return None
    try:
        return gpu_facts(dict(snapshot))
    except Exception as exc:
        if errors is not None:
            errors.append(f"environment snapshot unreadable: {type(exc).__name__}: {exc}")
        return None


def classify_record(rec: InputRecord, matcher: Matcher) -> Report:
    if rec.error is not None:
        return Report(id=rec.id, status="error", origin=rec.origin, errors=(rec.error,), label=rec.label)
    if rec.passed:
        return Report(id=rec.id, status="pass", origin=rec.origin, label=rec.label)
    problems: list[str] = []
    try:
        ev = evidence_for(rec, problems)
        diagnosis = matcher.diagnose(ev)
    except Exception as exc:  # never lose the batch to one record
        return Report(
            id=rec.id,
            status="error",
            origin=rec.origin,
            errors=(f"kdiag failed on this record: {type(exc).__name__}: {exc}",),
            label=rec.label,
        )
    warnings = list(rec.warnings) + problems
    if ev.log.truncated:
        warnings.append(f"log is {ev.log.bytes:,} bytes; rules searched its head and tail")
    return Report(
        id=rec.id,
        status="unknown" if diagnosis.category == "unknown" else "diagnosed",
        diagnosis=diagnosis,
        evidence=ev,
        origin=rec.origin,
        warnings=tuple(warnings),
        label=rec.label,
    )


def classify_records(
    records: Iterable[InputRecord], *, rules: RuleSet | None = None, min_confidence: float | None = None
) -> Iterator[Report]:
    matcher = Matcher(rules or default_rules())
    if min_confidence is not None:
        matcher.min_confidence = min_confidence
    for rec in records:
        yield classify_record(rec, matcher)
