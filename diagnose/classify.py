"""Classify logs: input record → collectors → Evidence → matcher → Report."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from diagnose.collectors import collect
from diagnose.evidence import Evidence
from diagnose.failure import has_failure
from diagnose.inputs import InputRecord
from diagnose.matcher import Diagnosis, Matcher
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
    if rec.code or rec.source:
        ev = _source_facts(ev, rec)
    else:
        from diagnose.run import result_source

        ev = result_source.with_record_facts(ev, rec.text)
    return ev


def _source_facts(ev: Evidence, rec: InputRecord) -> Evidence:
    """The run path's static source checks on the kernel a result record names or carries."""
    from diagnose.run import result_source

    text, path = result_source.read_source(rec.source, rec.code)
    if text is None:
        return ev
    return result_source.with_source_facts(ev, text, path=path, record_text=rec.text)


def _gpu_facts(snapshot: Mapping[str, Any], errors: list[str] | None) -> Any:
    from diagnose.envinfo.snapshot import gpu_facts

    try:
        return gpu_facts(dict(snapshot))
    except Exception as exc:
        if errors is not None:
            errors.append(f"environment snapshot unreadable: {type(exc).__name__}: {exc}")
        return None


_DYNAMIC: dict[int, tuple[RuleSet, dict[str, Any]]] = {}


def _dynamic_rules(rules: RuleSet) -> dict[str, Any]:
    """The rules with ``failure_mode_from``, by id: looked up once per rule set, not once per record."""
    hit = _DYNAMIC.get(id(rules))
    if hit is None or hit[0] is not rules:
        hit = (rules, {r.id: r for r in rules if r.failure_mode_from})
        _DYNAMIC[id(rules)] = hit
    return hit[1]


def resolve_modes(diagnosis: Diagnosis, evidence: Evidence, rules: RuleSet) -> Diagnosis:
    """Findings of rules with ``failure_mode_from`` take their failure mode from the evidence.

    A rule's category is fixed, its mode may come from a fact (``kb_label_mode``: the mode a person
    gave this failure).  Findings that end up naming the same (category, mode) are kept once.
    """
    dynamic = _dynamic_rules(rules)
    if not dynamic or not any(f.rule in dynamic for f in diagnosis.findings):
        return diagnosis
    context = evidence.context()
    seen: set[tuple[str, str]] = set()
    findings = []
    for f in diagnosis.findings:
        if f.rule in dynamic:
            f = dataclasses.replace(f, failure_mode=dynamic[f.rule].mode_for(context))
        if (f.category, f.failure_mode) not in seen:
            seen.add((f.category, f.failure_mode))
            findings.append(f)
    out = dataclasses.replace(diagnosis, findings=tuple(findings))
    if not diagnosis.abstained and findings and diagnosis.rule == findings[0].rule:
        out = dataclasses.replace(out, failure_mode=findings[0].failure_mode)
    return out


def status_of(diagnosis: Diagnosis, ev: Evidence) -> str:
    """diagnosed | unknown | no-failure: no rule fired and nothing in the evidence failed."""
    if diagnosis.category != "unknown":
        return "diagnosed"
    if not diagnosis.findings and not diagnosis.rule_errors and not has_failure(ev):
        return "no-failure"
    return "unknown"


def with_text_prior(diagnosis: Diagnosis, ev: Evidence) -> Diagnosis:
    """A failure no rule answered, answered from the text prior (:mod:`diagnose.text_prior`) when the words of the
    log the collectors read point to one owner clearly enough; else the diagnosis as it was."""
    from diagnose import text_prior as TP
    from diagnose.confidence import held_by_input

    if held_by_input(diagnosis.findings, ev.context()):
        return diagnosis
    model = TP.load()
    prior = TP.predict(ev.log.text, model) if model else None
    if model is None or prior is None or prior.probability < TP.ANSWER_FROM:
        return diagnosis
    finding = TP.finding(prior, model, ev.log.text, diagnosis.findings, _hint_check(ev))
    return dataclasses.replace(
        diagnosis,
        category=finding.category,
        failure_mode=finding.failure_mode,
        rule=finding.rule,
        confidence=finding.confidence,
        title=finding.title,
        findings=(finding, *diagnosis.findings),
        abstained=False,
        contested=False,
    )


def contested_by_text_prior(diagnosis: Diagnosis, ev: Evidence) -> Diagnosis:
    """A rule's answer below :data:`~diagnose.text_prior.CONTEST_BELOW` that the text prior contradicts with
    :data:`~diagnose.text_prior.CONTEST_FROM` or more becomes an abstention: the rule's finding first among the
    candidates, the prior's beside it (the check that decides is the rule's)."""
    from diagnose import text_prior as TP

    model = TP.load()
    if model is None or diagnosis.confidence >= TP.CONTEST_BELOW:
        return diagnosis
    prior = TP.predict(ev.log.text, model)
    if prior is None or prior.category == diagnosis.category or prior.probability < TP.CONTEST_FROM:
        return diagnosis
    against = TP.finding(prior, model, ev.log.text, diagnosis.findings, (None, ()), contested=diagnosis.category)
    return dataclasses.replace(
        diagnosis,
        category="unknown",
        failure_mode="ambiguous",
        title=f"The rules say {diagnosis.category} / {diagnosis.failure_mode}; the words of the log are those of "
        f"{prior.category} failures (probability {prior.probability:.2f}): undecided",
        findings=(*diagnosis.findings, against),
        abstained=True,
        contested=True,
    )


def _hint_check(ev: Evidence) -> tuple[str | None, tuple[tuple[str, str | None], ...]]:
    """The unmatched kind's deciding check and candidates (category, mode) for the log, when it has a kind."""
    from diagnose.unmatched import hint_for

    hint = hint_for(ev)
    if hint is None:
        return None, ()
    return hint.check, tuple((c.category, c.failure_mode) for c in hint.candidates)


def classify_record(rec: InputRecord, matcher: Matcher, *, text_prior: bool = False) -> Report:
    """One record's report; ``text_prior``: a failure no rule answered may be answered from the text prior, and a
    rule's answer it contradicts clearly is held back (``unknown``, both candidates kept)."""
    if rec.error is not None:
        return Report(id=rec.id, status="error", origin=rec.origin, errors=(rec.error,), label=rec.label)
    if rec.passed:
        return Report(id=rec.id, status="pass", origin=rec.origin, label=rec.label)
    problems: list[str] = []
    try:
        ev = evidence_for(rec, problems)
        diagnosis = resolve_modes(matcher.diagnose(ev), ev, matcher.rules)
    except Exception as exc:  # never lose the batch to one record
        return Report(
            id=rec.id,
            status="error",
            origin=rec.origin,
            errors=(f"kdiag failed on this record: {type(exc).__name__}: {exc}",),
            label=rec.label,
        )
    status = status_of(diagnosis, ev)
    if text_prior and status == "unknown":
        diagnosis = with_text_prior(diagnosis, ev)
        status = status_of(diagnosis, ev)
    elif text_prior and status == "diagnosed" and rec.env is None:  # not an answer an environment snapshot gave
        diagnosis = contested_by_text_prior(diagnosis, ev)
        status = status_of(diagnosis, ev)
    warnings = list(rec.warnings) + problems
    if ev.log.truncated:
        warnings.append(f"log is {ev.log.bytes:,} bytes; rules searched its head and tail")
    return Report(
        id=rec.id,
        status=status,
        diagnosis=diagnosis,
        evidence=ev,
        origin=rec.origin,
        warnings=tuple(warnings),
        label=rec.label,
    )


def classify_records(
    records: Iterable[InputRecord],
    *,
    rules: RuleSet | None = None,
    min_confidence: float | None = None,
    text_prior: bool = False,
) -> Iterator[Report]:
    """Reports for the records, in order (``text_prior``: as :func:`classify_record`; ``kdiag classify`` turns it
    on, the corpus check and the calibration measure the rules alone)."""
    matcher = Matcher(rules or default_rules())
    if min_confidence is not None:
        matcher.min_confidence = min_confidence
    for rec in records:
        yield classify_record(rec, matcher, text_prior=text_prior)


# --- batches on several cores ------------------------------------------------------------------

#: below this many records a pool costs more (each worker compiles the rule base) than it saves
PARALLEL_MIN_RECORDS = 2000
_CHUNK = 64

_worker_matcher: Matcher | None = None
_worker_text_prior = False


def _init_worker(rules_root: str | None, min_confidence: float | None, text_prior: bool = False) -> None:
    global _worker_matcher, _worker_text_prior
    from diagnose.rules import load_rules

    _worker_text_prior = text_prior
    _worker_matcher = Matcher(load_rules(rules_root))
    if min_confidence is not None:
        _worker_matcher.min_confidence = min_confidence


def _classify_chunk(chunk: list[InputRecord]) -> list[Report]:
    assert _worker_matcher is not None
    return [classify_record(rec, _worker_matcher, text_prior=_worker_text_prior) for rec in chunk]


def _chunks(records: Iterable[InputRecord], size: int) -> Iterator[list[InputRecord]]:
    chunk: list[InputRecord] = []
    for rec in records:
        chunk.append(rec)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def classify_parallel(
    records: Iterable[InputRecord],
    *,
    jobs: int,
    rules_root: str | None = None,
    min_confidence: float | None = None,
    text_prior: bool = False,
) -> Iterator[Report]:
    """Like :func:`classify_records`, on ``jobs`` worker processes; reports come back in input order.

    Workers are plain CPU processes (``spawn``: they inherit no state, and none of them touches a
    GPU); each compiles the rule base once.  Records stream in chunks, so memory stays bounded.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=ctx, initializer=_init_worker, initargs=(rules_root, min_confidence, text_prior)
    ) as pool:
        # a bounded window of chunks in flight keeps the input streaming and the order intact
        window: list[Any] = []
        for chunk in _chunks(records, _CHUNK):
            window.append(pool.submit(_classify_chunk, chunk))
            if len(window) >= jobs * 4:
                yield from window.pop(0).result()
        for fut in window:
            yield from fut.result()
