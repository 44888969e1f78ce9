"""From a report to the store, and from the store back into the next verdict.

:func:`observation` turns a :class:`~diagnose.report.Report` into an :class:`Observation`;
:func:`consult` adds what the store knows of the failure (a :class:`~diagnose.facts.KbFacts`
source) to the report's evidence and, when a person labelled it, diagnoses it again so the
label's rules (``rules/kb/``) can weigh in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

from diagnose.evidence import Evidence
from diagnose.facts import KbFacts
from diagnose.kb import fingerprint as FP
from diagnose.kb.store import Observation, Seen, Store, now
from diagnose.matcher import Matcher
from diagnose.report import Report

MAX_EXAMPLE = 16_000


def content_hash(ev: Evidence) -> str:
    """What the record said: its text and exit status (the id and origin are not content)."""
    h = hashlib.sha256(ev.log.text.encode("utf-8", "replace"))
    if ev.exit is not None:
        h.update(f"\0{ev.exit.code}\0{ev.exit.signal}\0{getattr(ev.exit, 'timed_out', False)}".encode())
    return h.hexdigest()


def observation_key(source: str | None, record_id: str | None, ev: Evidence) -> str:
    raw = "\0".join((source or "", record_id or "", content_hash(ev)))
    return hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest()


def _versions(ev: Evidence) -> tuple[str, ...]:
    g = ev.gpu
    if g is None:
        return ()
    pairs = (
        ("driver", g.driver_version),
        ("cuda-driver", g.cuda_driver_version),
        ("cuda-runtime", g.runtime_cuda_version),
        ("torch", g.torch_version),
        ("torch-cuda", g.torch_cuda),
        ("triton", g.triton_version),
        ("nvcc", g.nvcc_version),
    )
    return tuple(f"{k} {v}" for k, v in pairs if v not in (None, ""))


def _gpu(ev: Evidence) -> str | None:
    g = ev.gpu
    if g is None or not (g.name or g.arch):
        return None
    return " ".join(x for x in (g.name, f"({g.arch})" if g.arch else None) if x)


def observation(report: Report, *, source: str | None = None, seen_at: str | None = None) -> Observation | None:
    """The observation a report records; None for inputs that are not failures (pass, unreadable)."""
    ev = report.evidence
    if ev is None or report.status not in ("diagnosed", "unknown"):
        return None
    src = source if source is not None else report.origin
    d = report.diagnosis
    sig = FP.signature(ev)
    stored = ev.replace(kb=None).to_dict()
    stored.get("log", {}).pop("text", None)  # kept once, as the example
    return Observation(
        key=observation_key(src, report.id, ev),
        fingerprint=FP.fingerprint_of(sig),
        signature=sig,
        headline=FP.headline(ev),
        seen_at=seen_at or now(),
        status=report.status,
        category=report.category,
        failure_mode=report.failure_mode,
        rule=d.rule if d is not None and d.best is not None else None,
        confidence=d.confidence if d is not None else None,
        evidence=json.dumps(stored, ensure_ascii=False, default=str),
        example=ev.log.text[:MAX_EXAMPLE],
        source=src,
        record_id=report.id,
        versions=_versions(ev),
        gpu=_gpu(ev),
    )


def kb_facts(fp: str, seen: Seen) -> KbFacts:
    since = seen.first_seen[:10]
    text = f"seen {seen.count} time{'s' if seen.count != 1 else ''} since {since}"
    if seen.label_state:
        who = f" by {seen.label_by}" if seen.label_by else " by a person"
        text += f"; {seen.label_state} as {seen.label_category}/{seen.label_mode}{who}"
        if seen.label_note:
            text += f" ({seen.label_note})"
    return KbFacts(
        fingerprint=fp,
        seen_count=seen.count,
        first_seen=seen.first_seen,
        last_seen=seen.last_seen,
        label_state=seen.label_state,
        label_category=seen.label_category,
        label_mode=seen.label_mode,
        label_by=seen.label_by,
        label_note=seen.label_note,
        label_count=seen.label_count,
        summary=text,
    )


def consult(report: Report, store: Store, matcher: Matcher | Callable[[], Matcher]) -> Report:
    """The report, with what the store knows of its failure as evidence (and the verdict it leads to).

    ``matcher`` may be a callable: it is only needed (and only called) when a person labelled the failure.
    """
    ev = report.evidence
    if ev is None or report.status not in ("diagnosed", "unknown"):
        return report
    fp = FP.fingerprint(ev)
    seen = store.seen(fp)
    if seen is None:
        return report
    facts = kb_facts(fp, seen)
    ev = ev.replace(kb=facts)
    if not seen.label_state:
        return dataclasses.replace(report, evidence=ev)
    from diagnose.classify import resolve_modes

    m = matcher if isinstance(matcher, Matcher) else matcher()
    d = resolve_modes(m.diagnose(ev), ev, m.rules)
    best = d.best
    if best is not None and best.rule.startswith("kb-label-"):
        # the label decided: the report says why, in the words of the store
        title = f"{best.title}: {facts.summary}"
        best = dataclasses.replace(best, title=title)
        d = dataclasses.replace(d, title=title, findings=(best, *d.findings[1:]))
    status = "unknown" if d.category == "unknown" else "diagnosed"
    return dataclasses.replace(report, evidence=ev, diagnosis=d, status=status)


def note(report: Report) -> str | None:
    """One line for people: what the store knew of this failure."""
    ev = report.evidence
    kb: Any = ev.kb if ev is not None else None
    return kb.summary if kb is not None else None
