"""Every rule against one case's evidence: matched, skipped (with the evidence it lacked), not matched.

The matcher reports only what matched; the Rules tab also shows what was *skipped* — a rule
whose required sources are absent was not ruled out, it could not be checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RuleOutcome:
    rule: str
    title: str
    category: str
    failure_mode: str
    outcome: str  # matched | skipped | not-matched | error
    missing: tuple[str, ...] = ()  # skipped: the sources it needed
    error: str | None = None


@dataclass(frozen=True)
class Outcomes:
    rules: tuple[RuleOutcome, ...]
    note: str | None = None  # why nothing could be computed

    def of(self, outcome: str) -> list[RuleOutcome]:
        return [r for r in self.rules if r.outcome == outcome]


def outcomes(evidence: Mapping[str, Any] | None, rules: Any) -> Outcomes:
    """``evidence`` is an ``Evidence.to_dict()``; ``rules`` a :class:`diagnose.rules.RuleSet`."""
    from diagnose.evidence import Evidence

    if evidence is None:
        return Outcomes((), "no evidence record: results files keep it only with `kdiag classify --with-evidence`")
    try:
        ev = Evidence.from_dict(evidence)
    except (ValueError, TypeError, KeyError) as exc:
        return Outcomes((), f"the evidence record could not be read: {exc}")
    present = ev.present()
    context = ev.context()
    out = []
    for rule in rules:
        common = {"rule": rule.id, "title": rule.title, "category": rule.category, "failure_mode": rule.failure_mode}
        missing = tuple(sorted(set(rule.requires) - present))
        if missing:
            out.append(RuleOutcome(outcome="skipped", missing=missing, **common))
            continue
        try:
            hit = rule.matches(context)
        except Exception as exc:  # a broken rule is shown, not raised
            out.append(RuleOutcome(outcome="error", error=f"{type(exc).__name__}: {exc}", **common))
            continue
        out.append(RuleOutcome(outcome="matched" if hit else "not-matched", **common))
    return Outcomes(tuple(out))
