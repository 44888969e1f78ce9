"""Decided message families (diagnose/data/catalogue/) as rules of the rule base."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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


def _catalogue_rules(seen: dict[str, str], problems: list[RuleProblem]) -> list[Rule]:
    from diagnose.catalogue import CatalogueError, default_catalogue

    try:
        cat = default_catalogue()
    except CatalogueError as exc:
        problems.extend(RuleProblem(p.path, p.line, p.message) for p in exc.problems)
        return []
    out = []
    for fam in cat.families:
        if not fam.decided or fam.severity != "error":
            continue  # decided by the concept rules, or a warning: facts only
        if fam.id in seen:
            problems.append(RuleProblem(fam.path, fam.line, f"family id {fam.id!r} is also a rule id ({seen[fam.id]})"))
            continue
        out.append(family_rule(fam))
    return out
