"""The matcher: every rule against one Evidence record, ranked, with the lines each match rests on.

- A rule whose required sources are absent is *skipped* — not false: the report says which
  sources could not be checked.
- A rule that raises while matching becomes a reported rule error, never a crash.
- A rule whose pre-check hinges on a value (``cuda_error == "..."``, ``"tag" in env_issues``, a flag) is
  looked up from the record's values (:class:`_Index`) instead of being called on every record; the
  rules it leaves out are those whose pre-check is False there, so the answer is the same.
- A rule whose expression is made only of tests a pre-check answers exactly (string comparisons, regexes,
  members, flags, joined by ``and``/``or``/``not``: :func:`diagnose.prefilter.exact_test`) is answered by
  them; rule-engine evaluates the others, and any record whose values those tests do not decide about.
- Matches rank by priority, then specificity (how much evidence the rule weighs), then
  confidence.  One finding per (category, failure mode) is kept; the best is the diagnosis,
  the rest are the alternatives.
- Abstaining is a valid answer: when no rule matches, or the best match's confidence is
  below ``min_confidence``, the category is ``unknown`` (the candidates are still listed).
- When the runner-up is as strong (same priority) but names another category, the text
  fits several owners: the diagnosis' confidence is lowered by :data:`CONTESTED_FACTOR`.
- ``lead`` (``kdiag run``): a rule says whether it speaks about the target's declared contract or
  about a probe outside it (``speaks_about``).  When some finding speaks about a probe, the findings
  that speak about the lead rank first, the others follow as alternatives, and only the leading
  ones decide (contested, abstain); when none speaks about it the matcher abstains: no rule
  explains the failure at the declared sizes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from diagnose import causal
from diagnose.confidence import assess, ruled_out
from diagnose.evidence import SOURCES, Evidence, _empty_context, fact_symbols, symbol_source
from diagnose.prefilter import exact_from_plan, exact_test, kept_plans
from diagnose.regex_anchor import kept_literals
from diagnose.regex_literals import compiled
from diagnose.ruleexpr import LazyExpression
from diagnose.rules import FamilyCondition, Rule, RuleSet

#: confidences are calibrated (diagnose.calibration): how often such an answer was right on the labelled
#: corpus.  kdiag answers from 0.5 — only when the answer is likelier right than wrong: the answers between
#: 0.4 and 0.5 were right 42 % of the time (10 of 24; a bare "illegal memory access" is most of them), and a
#: wrong owner costs a reader more than an "unknown" that names the candidates and the check that decides.
#: `--min-confidence 0.4` answers those too.
MIN_CONFIDENCE = 0.5
CONTESTED_FACTOR = 0.85
MAX_CITED = 8

#: evidence that only a live run or a snapshot gives; when rules needed it and it is absent the
#: report says "could not check: ..." — skipped is not the same as ruled out
HOW_TO_GET = {
    "sanitizer": "no compute-sanitizer run (kdiag run --ladder full, on a GPU)",
    "gpu": "no NVML/environment snapshot (kdiag env --format json, or kdiag run)",
    "numerics": "no output comparison against a reference (kdiag run)",
    "run": "no controlled run (kdiag run)",
}


@dataclass(frozen=True)
class Cited:
    line: int
    text: str
    source: str

    def to_dict(self) -> dict:
        return {"line": self.line, "text": self.text, "source": self.source}


@dataclass(frozen=True)
class Finding:
    rule: str
    title: str
    category: str
    failure_mode: str
    confidence: float
    priority: int
    specificity: int
    evidence: tuple[Cited, ...]
    what: str
    why: str
    fix: str
    caveats: str | None = None
    references: tuple[str, ...] = ()
    speaks_about: str = "contract"  # contract | probe (diagnose.rules.Rule.speaks_about)
    facts: tuple[tuple[str, str], ...] = ()  # (symbol, value) of the facts the rule read: "In this log"

    def with_fact(self, fact: tuple[str, str], **changes: Any) -> Finding:
        """This finding with ``fact`` added to its facts (and ``changes``: of its rank, not of its texts)."""
        return replace(self, facts=(*self.facts, fact), **changes)

    def to_dict(self, *, full: bool = True) -> dict:
        out = {
            "rule": self.rule,
            "category": self.category,
            "failure_mode": self.failure_mode,
            "confidence": round(self.confidence, 3),
            "title": self.title,
        }
        if full:
            out.update(
                {
                    "priority": self.priority,
                    "evidence": [c.to_dict() for c in self.evidence],
                    "what": self.what,
                    "why": self.why,
                    "fix": self.fix,
                    "caveats": self.caveats,
                    "references": list(self.references),
                    "facts": dict(self.facts),
                }
            )
        return out


class _Text:
    """A text field (or the cited lines) of a :class:`_Deferred` finding: made, with the others, the first time
    one is read."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        d = obj.__dict__
        if self.name not in d:
            if self.name in ("caveats", "evidence"):  # all an abstention shows of its best candidate
                obj._render_alone(self.name)
            else:
                obj._render()
        return d[self.name]

    def __set__(self, obj: Any, value: Any) -> None:  # as a frozen dataclass's __init__ sets a field
        obj.__dict__[self.name] = value


class _Deferred(Finding):
    """A :class:`Finding` of the matcher whose texts (what, why, fix, caveats, facts: the rule's texts with
    the input's values) and cited lines are made the first time one of them is read; most findings of a batch
    are alternatives whose texts and lines no output shows.  Equal to, hashed and pickled as the Finding
    with its texts and lines."""

    evidence = _Text()
    what = _Text()
    why = _Text()
    fix = _Text()
    caveats = _Text()
    facts = _Text()

    def _render(self) -> None:
        from diagnose.explain import explain_finding

        pending = self.__dict__.get("_pending")
        if pending is None:  # made meanwhile, by another thread's read: every text is set
            return
        rule, evidence, context, moved, added = pending
        try:
            text = explain_finding(rule, evidence, context)  # the rule's text with this input's values
            facts = text.facts + ((("confidence", moved),) if moved else ()) + added
            # the cited lines read alone before (an output reads them first) are the same: not cited again
            cited = self.__dict__["evidence"] if "evidence" in self.__dict__ else cite(rule, evidence)
            made = dict(evidence=cited, what=text.what, why=text.why, fix=text.fix, caveats=text.caveats, facts=facts)
        except Exception as exc:  # read by an output, long after the matcher: say so there, lose nothing else
            why = f"{type(exc).__name__}: {exc}"
            made = dict(
                evidence=(),
                what=f"(rule {rule.id}: its text could not be made for this input: {why})",
                why="",
                fix="",
                caveats="",
                facts=(("render_error", why), *added),
            )
        self.__dict__.update(made)
        self.__dict__.pop("_pending", None)

    def _render_alone(self, name: str) -> None:
        """Make one text alone: the cited lines (``evidence``) or the ``caveats``, all an abstention shows of
        its best candidate; the other texts stay to be made."""
        pending = self.__dict__.get("_pending")
        if pending is None:  # made meanwhile, with every text
            return
        rule, evidence, context, _moved, _added = pending
        value: Any
        try:
            if name == "caveats":
                from diagnose.explain import explain_caveats, own_message

                value = explain_caveats(rule, own_message(rule, evidence, context))
            else:
                value = cite(rule, evidence)
        except Exception:  # the full rendering says what went wrong, in its texts
            self._render()
            return
        self.__dict__.setdefault(name, value)

    def with_fact(self, fact: tuple[str, str], **changes: Any) -> Finding:
        """As :meth:`Finding.with_fact`; where the texts are not made yet they stay so, the fact added to the
        facts when they are made."""
        pending = self.__dict__.get("_pending")
        if pending is None:
            return super().with_fact(fact, **changes)
        rule, evidence, context, moved, added = pending
        out = object.__new__(_Deferred)
        out.__dict__.update(self.__dict__, **changes)
        out.__dict__["_pending"] = (rule, evidence, context, moved, (*added, fact))
        return out

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Finding):
            return self._values() == tuple(getattr(other, f) for f in _FIELDS)
        return NotImplemented

    __hash__ = Finding.__hash__

    def __repr__(self) -> str:
        return repr(Finding(*self._values()))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return Finding, self._values()


_FIELDS = tuple(f.name for f in fields(Finding))


@dataclass(frozen=True)
class Diagnosis:
    category: str  # kernel-logic | environment | runtime-assumption | unknown
    failure_mode: str
    rule: str | None
    confidence: float
    title: str
    findings: tuple[Finding, ...]  # ranked, best first, one per (category, failure mode)
    unchecked: tuple[str, ...] = ()  # sources no rule could use: "could not check: ..."
    skipped_rules: int = 0
    rule_errors: tuple[str, ...] = ()
    contested: bool = False
    abstained: bool = False  # the best candidate was below the confidence threshold

    @property
    def best(self) -> Finding | None:
        return None if self.abstained or not self.findings else self.findings[0]

    @property
    def alternatives(self) -> tuple[Finding, ...]:
        return self.findings if self.abstained else self.findings[1:]


_CONCEPT = frozenset({"concept"})


@dataclass(frozen=True)
class _Group:
    """The rules that require the same evidence sources: one subset test per record decides whether
    all of them are tried or all skipped."""

    requires: frozenset[str]
    rules: tuple[tuple[int, Rule], ...]  # (index in the rule base, rule), in rule-base order
    modes: frozenset[str]  # their failure modes ("could not check" when they are skipped)
    ungated: tuple[tuple[int, Rule], ...] = ()  # the rules without a gate: tried whenever the group is


#: a gated rule in the matcher's index: (index in the rule base, rule, index of its group)
_Entry = tuple[int, Rule, int]


@dataclass
class _Index:
    """The gated rules (:func:`diagnose.prefilter.gate_of`) by their keys: a record's candidates are
    looked up from its values instead of every rule's pre-check being called.  A rule is left out
    only where the record holds none of its keys (its pre-check would be False, without raising);
    wherever a value is of a kind the keys do not say about, the rule is a candidate."""

    eq: dict[str, dict[str, list[_Entry]]] = field(default_factory=dict)
    has: dict[str, dict[str, list[_Entry]]] = field(default_factory=dict)
    true: dict[str, list[_Entry]] = field(default_factory=dict)
    notnull: dict[str, list[_Entry]] = field(default_factory=dict)

    def add(self, gate: tuple[tuple[str, str, str], ...], entry: _Entry) -> None:
        for kind, name, lit in gate:
            if kind in ("true", "set"):
                (self.true if kind == "true" else self.notnull).setdefault(name, []).append(entry)
            else:
                table = self.eq if kind == "eq" else self.has
                table.setdefault(name, {}).setdefault(lit, []).append(entry)

    def candidates(self, context: Mapping[str, Any], hits: dict[int, _Entry]) -> None:
        """Add to ``hits`` the gated rules one of whose keys ``context`` holds (or may hold), by rule-base index."""
        for name, by_value in self.eq.items():  # sym == "lit", sym in ["lit", ...]
            v = context.get(name)
            if v is None:
                continue
            if isinstance(v, str):
                for e in by_value.get(v, ()):
                    hits[e[0]] = e
            else:  # not a string: the pre-check decides
                _all(by_value, hits)
        for name, by_member in self.has.items():  # "lit" in sym
            v = context.get(name)
            if not v:
                continue
            if isinstance(v, tuple | list | frozenset | set):
                for x in v:
                    if isinstance(x, str):
                        for e in by_member.get(x, ()):
                            hits[e[0]] = e
            elif isinstance(v, str):
                for lit, entries in by_member.items():
                    if lit in v:
                        for e in entries:
                            hits[e[0]] = e
            else:
                _all(by_member, hits)
        for name, entries in self.true.items():  # a boolean symbol
            v = context.get(name)
            if v is None or v is False:
                continue
            for e in entries:
                hits[e[0]] = e
        for name, entries in self.notnull.items():  # sym != null
            if context.get(name) is not None:
                for e in entries:
                    hits[e[0]] = e


def _holds_by_default(gate: tuple[tuple[str, str, str], ...], empty: Mapping[str, Any]) -> bool:
    """Whether a record whose sources say nothing holds one of the keys (the symbols' values when absent)."""
    for kind, name, lit in gate:
        v = empty.get(name)
        if kind == "has" and v and not isinstance(v, str | tuple | list | frozenset | set):
            return True  # a value of another kind: the pre-check decides
        if (kind == "eq" and v == lit) or (kind == "has" and v and lit in v) or (kind == "true" and v):
            return True
        if kind == "set" and v is not None:
            return True
    return False


def _all(table: Mapping[str, list[_Entry]], hits: dict[int, _Entry]) -> None:
    for entries in table.values():
        for e in entries:
            hits[e[0]] = e


@dataclass
class Matcher:
    rules: RuleSet
    min_confidence: float = MIN_CONFIDENCE
    _groups: list[_Group] = field(init=False, repr=False)
    # the rules of decided message families, by family id: looked up from the families a log printed
    # instead of each being tried on every record (there are many, and a log prints few)
    _by_family: dict[str, list[tuple[int, Rule]]] = field(init=False, repr=False)
    _families: _Group = field(init=False, repr=False)
    _index: dict[str, _Index] = field(init=False, repr=False)  # by the source of the symbols

    def __post_init__(self) -> None:
        by_requires: dict[frozenset[str], list[tuple[int, Rule]]] = {}
        family_rules: list[tuple[int, Rule]] = []
        self._by_family = {}
        for i, r in enumerate(self.rules):
            requires = frozenset(r.requires)
            if isinstance(r.compiled, FamilyCondition) and r.precheck is None and requires == _CONCEPT:
                self._by_family.setdefault(r.compiled.family, []).append((i, r))
                family_rules.append((i, r))
            else:
                by_requires.setdefault(requires, []).append((i, r))
        self._groups = [_group(req, members) for req, members in by_requires.items()]
        self._families = _group(_CONCEPT, family_rules)
        # the keys of each source's symbols: a record's lookups are those of the sources it has (the symbols
        # of the others hold their empty values, which no key left in the index holds)
        self._index = {}
        for g, group in enumerate(self._groups):
            for i, r in group.rules:
                if r.gate and _gated(r):
                    for key in r.gate:
                        source = fact_symbols().get(key[1], "")
                        self._index.setdefault(source, _Index()).add((key,), (i, r, g))

    def diagnose(self, evidence: Evidence, *, lead: str | None = None) -> Diagnosis:
        present = evidence.present()
        context = evidence.context()
        matched: list[tuple[int, Rule]] = []
        errors: list[tuple[int, str]] = []
        skipped: list[_Group] = []  # groups whose required sources are absent: skipped, not false
        tried: list[bool] = []
        candidates: list[tuple[int, Rule]] = []
        for group in self._groups:
            ok = group.requires <= present
            tried.append(ok)
            if ok:
                candidates += group.ungated
            else:
                skipped.append(group)
        # the gated rules of the tried groups that the record holds a key of: the others' pre-checks are False
        candidates += [(i, r) for i, r, g in self._looked_up(context, present).values() if tried[g]]
        self._try(candidates, context, matched, errors)
        errors.sort(key=lambda e: e[0])  # rule-base order, as if every rule had been tried in turn
        if "concept" in present:
            for family in dict.fromkeys(context.get("concept_families") or ()):
                self._try(self._by_family.get(family, ()), context, matched, errors)
        elif self._families.rules:
            skipped.append(self._families)
        matched.sort(key=lambda m: m[0])  # rule-base order
        # an answer the input's own figures rule out is no candidate (other tenants, when the log shows none)
        matched = [m for m in matched if ruled_out(m[1], context) is None]
        # rank and keep one per (category, mode) first: only the kept ones get their explanation rendered
        # each rule's confidence on this input: calibrated, moved by the evidence (diagnose.confidence)
        conf = {r.id: assess(r, context) for _, r in matched}
        ranked = sorted((r for _, r in matched), key=lambda r: (r.priority, r.specificity, conf[r.id][0]), reverse=True)
        kept = _dedupe(ranked)
        findings = [_finding(r, evidence, context, conf[r.id], deferred=True) for r in kept]
        findings = causal.order(kept, findings, evidence)  # a symptom ranks below the earlier line that caused it
        # "could not check" names the evidence that would have decided between this diagnosis and its
        # candidates: sources missing for skipped rules of the same failure modes (all, when none fit)
        modes = {f.failure_mode for f in findings}
        missing: set[str] = set()
        for group in skipped:
            if not modes or not group.modes.isdisjoint(modes):
                missing |= group.requires - present
        unchecked = tuple(HOW_TO_GET[k] for k in HOW_TO_GET if k in missing)
        # every finding's texts, the answer's too, are made when an output first reads them (a text that fails
        # to render says so in its finding): a caller that reads only the verdicts (eval, corpus check) makes none
        diag = decide(findings, lead=lead, min_confidence=self.min_confidence)
        n_skipped = sum(len(g.rules) for g in skipped)
        return replace(diag, unchecked=unchecked, skipped_rules=n_skipped, rule_errors=tuple(e for _, e in errors))

    def _looked_up(self, context: Mapping[str, Any], present: frozenset[str]) -> dict[int, _Entry]:
        """The gated rules one of whose keys the record holds, by rule-base index."""
        hits: dict[int, _Entry] = {}
        for source in ("", *present):
            index = self._index.get(source)
            if index is not None:
                index.candidates(context, hits)
        return hits

    @staticmethod
    def _try(
        rules: Iterable[tuple[int, Rule]],
        context: Mapping[str, Any],
        matched: list[tuple[int, Rule]],
        errors: list[tuple[int, str]],
    ) -> None:
        """``rule.matches(context)`` of each rule, spelt out: this runs for every candidate rule of every record."""
        for i, rule in rules:
            try:
                pre = rule.precheck
                if pre is None or pre(context):
                    # answered by the expression's own tests where they decide (diagnose.prefilter.exact_test)
                    decide = _decider(rule.compiled)
                    hit = decide(context) if decide is not None else None
                    if hit is None:
                        hit = rule.compiled.matches(context)
                    if hit:
                        matched.append((i, rule))
            except Exception as exc:  # a broken rule is reported, the record is still diagnosed
                errors.append((i, f"{rule.id}: {type(exc).__name__}: {exc}"))


#: each rule expression's exact test (or None), by the id of the compiled expression (kept with it)
_DECIDERS: dict[int, tuple[Any, Any]] = {}


def _decider(compiled: Any) -> Any:
    """The exact test of a rule's compiled ``when`` (:func:`diagnose.prefilter.exact_test`), made the first time the
    rule is evaluated; None for an expression it does not answer (or a condition that is no rule-engine rule)."""
    hit = _DECIDERS.get(id(compiled))
    if hit is None or hit[0] is not compiled:
        try:
            # from the plan the rule cache kept with the expression (no parse), else from its statement
            kept = kept_plans(compiled.text) if isinstance(compiled, LazyExpression) else None
            if kept is not None:
                decide = exact_from_plan(kept[1])
            else:
                statement = getattr(compiled, "statement", None)
                decide = exact_test(statement) if statement is not None else None
        except Exception:  # evaluated as it always was, which reports what is wrong
            decide = None
        if len(_DECIDERS) >= 1 << 15:  # rule bases loaded again and again (tests): the old ones' go
            _DECIDERS.clear()
        hit = _DECIDERS[id(compiled)] = (compiled, decide)
    return hit[1]


def _gated(rule: Rule) -> bool:
    """Whether the matcher looks ``rule`` up by its gate's keys (one that an empty record holds is tried always)."""
    gate = rule.gate
    return bool(gate) and rule.precheck is not None and not _holds_by_default(gate or (), _empty_context())


def _group(requires: frozenset[str], members: list[tuple[int, Rule]]) -> _Group:
    ungated = tuple((i, r) for i, r in members if not _gated(r))
    return _Group(requires, tuple(members), frozenset(r.failure_mode for _, r in members), ungated)


def decide(
    findings: Iterable[Finding], *, lead: str | None = None, min_confidence: float = MIN_CONFIDENCE
) -> Diagnosis:
    """The diagnosis from ranked, deduplicated findings; ``lead`` (contract | probe) ranks first the
    findings that speak about it, and only those decide."""
    ranked = list(findings)
    if not any(f.speaks_about == "probe" for f in ranked):
        lead = None  # nothing outside the contract was found: the plain ranking
    if lead is not None:
        ranked.sort(key=lambda f: f.speaks_about == lead, reverse=True)  # stable: keeps the rank within each
    leading = [f for f in ranked if lead is None or f.speaks_about == lead]
    if not ranked:
        return Diagnosis("unknown", "unmatched", None, 0.0, "No rule matched this failure", ())
    if not leading:  # a failure no rule explains at the declared sizes: the probe findings are the candidates
        title = "No rule explains the failure at the declared sizes"
        return Diagnosis("unknown", "unmatched", None, 0.0, title, tuple(ranked), abstained=True)
    top = leading[0]
    contested = any(f.category != top.category and f.priority >= top.priority for f in leading[1:])
    confidence = round(top.confidence * (CONTESTED_FACTOR if contested else 1.0), 3)
    if contested:  # one number per rule: the best candidate's finding shows the confidence the diagnosis has
        top = _contested(top, confidence)
        ranked = [top if f is leading[0] else f for f in ranked]
    ranked = [ranked[0], *(_below(f, confidence) for f in ranked[1:])] if ranked[0] is top else ranked
    if confidence < min_confidence:
        title = f"Not enough evidence to decide (best guess: {top.title})"
        return Diagnosis(
            "unknown", "ambiguous", top.rule, confidence, title, tuple(ranked), contested=contested, abstained=True
        )
    return Diagnosis(
        top.category, top.failure_mode, top.rule, confidence, top.title, tuple(ranked), contested=contested
    )


def _contested(finding: Finding, confidence: float) -> Finding:
    """The leading finding when a rule of the same rank names another owner: its confidence lowered to the
    diagnosis's, the rule's own figure kept in its facts."""
    if finding.confidence <= confidence:
        return finding
    note = (
        f"{finding.confidence:.2f} for this rule in general; {confidence:.2f} here (x{CONTESTED_FACTOR}), where a rule"
        " of the same rank names another owner"
    )
    return finding.with_fact(("confidence", note), confidence=confidence)


def _below(finding: Finding, ceiling: float) -> Finding:
    """An alternative ranked below the answer says no more than the answer: a rule that outranks it
    (higher priority, more specific) matched this input, so its general precision overstates it here."""
    if finding.confidence <= ceiling:
        return finding
    note = (
        f"{finding.confidence:.2f} for this rule in general; at most the answer's {ceiling:.2f}, which outranks it here"
    )
    return finding.with_fact(("confidence", note), confidence=ceiling)


def _rank(f: Finding | Rule) -> tuple[int, int, float]:
    return (f.priority, f.specificity, f.confidence)


def _dedupe(findings: Iterable[Any]) -> list[Any]:
    """The first of each (category, failure mode), in the given order (findings or rules)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for f in findings:
        key = (f.category, f.failure_mode)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    return out


def _finding(
    rule: Rule,
    evidence: Evidence,
    context: Mapping[str, Any] | None = None,
    confidence: tuple[float, str | None] | None = None,
    *,
    deferred: bool = False,
) -> Finding:
    """The finding of ``rule`` on ``evidence``; ``deferred``: its texts and lines made when first read (:class:`_Deferred`)."""
    from diagnose.explain import explain_finding

    if context is None:
        context = evidence.context()
    value, moved = assess(rule, context) if confidence is None else confidence
    fixed: dict[str, Any] = {
        "rule": rule.id,
        "title": rule.title,
        "category": rule.category,
        "failure_mode": rule.failure_mode,
        "confidence": value,
        "priority": rule.priority,
        "specificity": rule.specificity,
        "references": rule.references,
        "speaks_about": rule.speaks_about,
    }
    if deferred:
        finding = object.__new__(_Deferred)
        finding.__dict__.update(fixed, _pending=(rule, evidence, context, moved, ()))
        return finding
    text = explain_finding(rule, evidence, context)  # the rule's text with this input's values
    return Finding(
        **fixed,
        evidence=cite(rule, evidence),
        what=text.what,
        why=text.why,
        fix=text.fix,
        caveats=text.caveats,
        facts=text.facts + ((("confidence", moved),) if moved else ()),
    )


def cite(rule: Rule, evidence: Evidence) -> tuple[Cited, ...]:
    """The input lines a match rests on: the lines of every source whose facts the rule reads,
    and the lines its text regexes hit."""
    from diagnose.catalogue import TRACEBACK_FRAME  # loaded by the collectors before any finding is cited

    text = evidence.log.text
    text_lines = text.splitlines()
    picked: dict[int, str] = {}
    for key in _cited_sources(rule.symbols, rule.requires):
        facts = getattr(evidence, key)
        if facts is None:
            continue
        for n in facts.lines:
            picked.setdefault(n, key)
    for pattern in rule.text_patterns:
        rx = _text_pattern(pattern)
        if rx is None or not _may_match(rx)(text):  # no literal every match holds: no line matches
            continue
        echo = None  # a traceback's quoted source line: cited only when no other line matches
        for i, line in enumerate(text_lines, 1):
            if rx.search(line):
                if i > 1 and TRACEBACK_FRAME.match(text_lines[i - 2]):
                    echo = echo or i
                    continue
                picked.setdefault(i, "log")
                break
        else:
            if echo is not None:
                picked.setdefault(echo, "log")
    out = []
    for n in sorted(picked)[:MAX_CITED]:
        text = text_lines[n - 1] if 0 < n <= len(text_lines) else ""
        out.append(Cited(line=n, text=text.rstrip()[:300], source=picked[n]))
    return tuple(out)


@functools.lru_cache(maxsize=8192)
def _cited_sources(symbols: tuple[str, ...], requires: tuple[str, ...]) -> tuple[str, ...]:
    """The evidence sources (but the log) whose lines a rule reading ``symbols`` and requiring ``requires`` cites,
    in the order of :data:`SOURCES`: worked out once per rule."""
    sources = {symbol_source(s) for s in symbols} | set(requires)
    return tuple(key for key in SOURCES if key != "log" and key in sources)


@functools.lru_cache(maxsize=8192)
def _may_match(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """A rule's text pattern's test from the plan kept with the rule base (:func:`diagnose.regex_anchor.kept_literals`:
    False only where the text holds none of the literals that start every match); a pattern without one is
    tried line by line, its literals not read again here."""
    return kept_literals(rx) or _any_text


def _any_text(text: str) -> bool:
    return True


@functools.lru_cache(maxsize=8192)
def _text_pattern(pattern: str) -> re.Pattern[str] | None:
    """A rule's text regex, compiled once (the rule base holds more than ``re``'s own cache keeps);
    None when it does not compile."""
    try:
        return compiled(pattern)  # the rule base's own compiled pattern, where it has one
    except re.error:
        return None
