"""Decided message families (diagnose/data/catalogue/) as rules of the rule base."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from diagnose.rule_model import Example, Explain, Rule, RuleProblem

# --- message families as rules ------------------------------------------------------


@dataclass(frozen=True)
class FamilyCondition:
    """The `when` of a family's rule: the family matched (a set lookup, no expression to evaluate)."""

    family: str

    def matches(self, context: Mapping[str, Any]) -> bool:
        return self.family in (context.get("concept_families") or ())


def family_rule(fam: Any) -> Rule:
    """The rule a decided message family (diagnose.catalogue.Family) stands for."""
    samples = [Example(log=m.sample, origin=m.source) for m in fam.messages if m.sample]
    samples += [Example(log=str(e["log"]), origin=e.get("origin")) for e in fam.examples]
    return Rule(
        id=fam.id,
        title=fam.title,
        category=fam.category,
        failure_mode=fam.failure_mode,
        status="stable",
        confidence=fam.confidence,
        priority=fam.priority,
        requires=("concept",),
        when=f'"{fam.id}" in concept_families',
        explain=Explain(**fam.explain, fixes=fam.fixes),
        references=fam.references or (fam.path,),
        match_examples=tuple(samples),
        no_match_examples=(),
        path=fam.path,
        line=fam.line,
        symbols=("concept_families",),
        text_patterns=tuple(rx.pattern for rx in fam.patterns),
        tags=("family", fam.tool),
        compiled=FamilyCondition(fam.id),
        precheck=None,
    )


def candidate_rules(fam: Any) -> list[Rule]:
    """The rules of a family's candidates (diagnose.catalogue_candidates): one per owner the message can
    have, each below the confidence kdiag answers from, so the message alone gives ``unknown`` with the
    candidates ranked and the family's caveats as the check that decides."""
    from diagnose.catalogue_candidates import CANDIDATE_PRIORITY

    base = family_rule(fam)
    what = fam.explain["what"]
    if "{" not in what + fam.explain["why"]:
        what = f"{what} The log says `{{concept_message}}`."
    out = []
    for c in fam.candidates:
        out.append(
            replace(
                base,
                id=f"{fam.id}-as-{c.category}",
                title=f"{fam.title} (candidate: {c.category})",
                category=c.category,
                failure_mode=c.failure_mode,
                confidence=c.confidence,
                priority=CANDIDATE_PRIORITY,
                explain=replace(base.explain, what=what),
                tags=(*base.tags, "candidate"),
            )
        )
    return out


def _catalogue_rules(seen: dict[str, str], problems: list[RuleProblem]) -> list[Rule]:
    from diagnose.catalogue import CatalogueError, default_catalogue

    try:
        cat = default_catalogue()
    except CatalogueError as exc:
        problems.extend(RuleProblem(p.path, p.line, p.message) for p in exc.problems)
        return []
    out = []
    for fam in cat.families:
        if fam.severity != "error":
            continue  # a warning: facts only
        if not fam.decided:  # decided by the concept rules; its candidates, if any, when they do not decide
            for rule in candidate_rules(fam):
                if rule.id in seen:
                    problems.append(RuleProblem(fam.path, fam.line, f"candidate rule id {rule.id!r} is also a rule id"))
                else:
                    out.append(rule)
            continue
        if fam.id in seen:
            problems.append(RuleProblem(fam.path, fam.line, f"family id {fam.id!r} is also a rule id ({seen[fam.id]})"))
            continue
        out.append(family_rule(fam))
    return out
