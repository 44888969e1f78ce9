"""Rule-base checks beyond loading: every example behaves as it says, and no rule breaks on empty evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diagnose import facts as F
from diagnose.collectors import collect
from diagnose.evidence import SOURCES, Evidence
from diagnose.lint_arch import check_arch_guard, check_guard_allow_list
from diagnose.lint_evidence import (
    check_allow_list,
    check_evidence_text,
    check_fix_frameworks,
    family_template_contexts,
)
from diagnose.lint_language import check_rule_language, check_unmatched_language
from diagnose.lint_os import check_fix_os
from diagnose.lint_owner import check_fix_owner
from diagnose.rules import Example, Rule, RuleProblem, RuleSet


def example_evidence(ex: Example) -> Evidence:
    if ex.evidence is not None:
        ev = Evidence.from_dict(ex.evidence)
        if ex.log:
            base = collect(ex.log, exit_code=ex.exit_code, signal=ex.signal, timed_out=ex.timed_out)
            merged = {k: getattr(ev, k) or getattr(base, k) for k in SOURCES}
            return Evidence(**merged)
        return ev
    return collect(ex.log, exit_code=ex.exit_code, signal=ex.signal, timed_out=ex.timed_out)


def _blank(rule: Rule) -> Evidence:
    """Every source the rule requires present, every field at its empty default."""
    kwargs = {key: SOURCES[key]() for key in rule.requires if key != "log"}
    return Evidence(log=F.LogFacts(), **kwargs)  # type: ignore[arg-type]


def check_explain(rule: Rule) -> list[RuleProblem]:
    """The explanation's placeholders name real symbols and formats; each text says something when
    the values are absent; on each match example every placeholder outside ``[[ ]]`` has a value."""
    from diagnose import explain as X
    from diagnose.evidence import rule_types

    problems = []
    e = rule.explain
    texts = {"what": e.what, "why": e.why, "fix": e.fix, "caveats": e.caveats or ""}
    texts.update({f"fix.{fw}": text for fw, text in e.fixes})
    possible = X.frameworks_possible(rule.requires)
    for fw, _ in e.fixes:
        if fw not in possible:
            msg = f"explain.fix.{fw}: evidence with {', '.join(rule.requires)} cannot come from {fw}"
            problems.append(RuleProblem(rule.path, rule.line, msg))
    known = rule_types()
    for key, text in texts.items():
        for msg in X.problems(text, known):
            problems.append(RuleProblem(rule.path, rule.line, f"explain.{key}: {msg}"))
    if problems or not any(X.placeholders(t) for t in texts.values()):
        return problems
    blank = _blank(rule).context()
    for key, text in texts.items():
        if text and X.placeholders(text) and not X.render(text, blank):
            problems.append(
                RuleProblem(
                    rule.path,
                    rule.line,
                    f"explain.{key}: every sentence needs a value; keep one without placeholders for inputs that lack them",
                )
            )
    for ex in rule.match_examples:
        try:
            ctx = example_evidence(ex).context()
        except Exception:
            continue  # reported by check_rule
        for key, text in texts.items():
            required = X.required_text(text)
            for m in X.PLACEHOLDER.finditer(required):
                try:
                    X._fill(m.group(0), ctx)
                except X.Absent:
                    problems.append(
                        RuleProblem(
                            rule.path,
                            ex.line or rule.line,
                            f"explain.{key}: {m.group(0)} has no value on this match example "
                            "(its sentence would be left out): use a fact it has, or put it inside [[ ]]",
                        )
                    )
    return problems


def _contexts(rule: Rule) -> list[tuple[int, Any]]:
    """The rule context of each match example that reads (with its line), and a family's filled templates."""
    out: list[tuple[int, Any]] = []
    for ex in rule.match_examples:
        try:
            out.append((ex.line or rule.line, example_evidence(ex).context()))
        except Exception:
            continue  # reported below
    return out + family_template_contexts(rule)


def check_rule(rule: Rule) -> list[RuleProblem]:
    """Every problem of one rule, errors and warnings (``RuleProblem.severity``)."""
    problems = check_explain(rule)
    contexts = _contexts(rule)
    problems += check_evidence_text(rule, contexts) + check_fix_frameworks(rule, contexts)
    problems += check_fix_os(rule, contexts) + check_rule_language(rule, contexts)
    problems += check_fix_owner(rule, contexts) + check_arch_guard(rule)
    for ex in rule.match_examples + rule.no_match_examples:
        expected = ex in rule.match_examples
        try:
            ev = example_evidence(ex)
        except Exception as exc:
            problems.append(RuleProblem(rule.path, ex.line, f"example cannot be read: {exc}"))
            continue
        present = ev.present()
        if expected and not set(rule.requires) <= present:
            missing = ", ".join(sorted(set(rule.requires) - present))
            problems.append(
                RuleProblem(
                    rule.path, ex.line, f"match example lacks required evidence ({missing}): the rule is skipped"
                )
            )
            continue
        if not set(rule.requires) <= present:
            # a skipped rule cannot match, so such a no_match example tests nothing of `when`
            missing = ", ".join(sorted(set(rule.requires) - present))
            problems.append(
                RuleProblem(
                    rule.path,
                    ex.line,
                    f"no_match example lacks required evidence ({missing}): it must reach `when` to be a near miss",
                )
            )
            continue
        try:
            got = rule.matches(ev.context())
        except Exception as exc:
            problems.append(RuleProblem(rule.path, ex.line, f"example raises while matching: {exc}"))
            continue
        if got != expected:
            problems.append(
                RuleProblem(
                    rule.path,
                    ex.line,
                    "match example does not match" if expected else "no_match example matches",
                )
            )
    try:
        rule.matches(_blank(rule).context())
    except Exception as exc:
        problems.append(
            RuleProblem(
                rule.path,
                rule.line,
                f"rule raises on evidence whose fields are empty ({exc}); guard nullable fields with ?? or != null",
            )
        )
    return problems


def _fires(rule: Rule, ev: Evidence) -> bool:
    if not set(rule.requires) <= ev.present():
        return False
    try:
        return bool(rule.matches(ev.context()))
    except Exception:
        return False  # check_rule reports rules that raise


def check_overlaps(rules: RuleSet) -> list[RuleProblem]:
    """Two rules that say the same thing (category and failure mode) and both fire on one of their
    own match examples, with neither more specific (a higher priority, else a higher specificity):
    one fact with two owners.  Merge them, or make one the more specific.

    A message family's rule (diagnose/data/catalogue/) beside a hand-written rule on the same message
    is not such a pair: both name the same owner and mode, so the verdict is the same whichever ranks
    first (the hand rule on a full tie: it comes first in the rule base); the hand rule weighs the
    context and carries the curated explanation, the family reads the tool's other wordings and
    carries the concept facts."""
    groups: dict[tuple[str, str], list[Rule]] = {}
    for r in rules:
        if r.status != "deprecated":
            groups.setdefault((r.category, r.failure_mode), []).append(r)
    problems: list[RuleProblem] = []
    for group in groups.values():
        if len(group) < 2:
            continue
        for rule in group:
            rivals = [
                o
                for o in group
                if o is not rule
                and (o.priority, o.specificity) == (rule.priority, rule.specificity)
                and ("family" in o.tags) == ("family" in rule.tags)
            ]
            for ex in rule.match_examples if rivals else ():
                try:
                    ev = example_evidence(ex)
                except Exception:
                    continue  # check_rule reports it
                for other in rivals:
                    if _fires(other, ev):
                        problems.append(
                            RuleProblem(
                                rule.path,
                                ex.line,
                                f"{other.id} ({other.path}) also fires on this example, with the same category, "
                                f"failure mode, priority ({rule.priority}) and specificity ({rule.specificity}): "
                                "merge the two rules or make one more specific",
                            )
                        )
    return problems


def check_rules(rules: RuleSet) -> list[RuleProblem]:
    out: list[RuleProblem] = []
    for rule in rules:
        out.extend(check_rule(rule))
    out.extend(check_overlaps(rules))
    from diagnose.rule_model import DEFAULT_RULES_DIR

    if Path(rules.root).resolve() == DEFAULT_RULES_DIR.resolve():
        ids = {r.id for r in rules}
        out.extend(check_allow_list(ids) + check_guard_allow_list(ids))
        out.extend(check_unmatched_language())
    return out


def errors(problems: list[RuleProblem]) -> list[RuleProblem]:
    return [p for p in problems if p.severity == "error"]
