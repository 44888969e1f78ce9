"""The rule base: one YAML file per rule, loaded, validated and compiled.

A rule file looks like this (``rules/cuda/cuda-illegal-address-text-only.yaml``)::

    id: cuda-illegal-address-text-only        # == the file's stem
    title: Illegal memory access, from the error text alone
    category: kernel-logic                    # kernel-logic | environment | runtime-assumption
    failure_mode: oob-global-access           # kebab-case, see TAXONOMY.md
    status: stable                            # stable | experimental | deprecated
    confidence: 0.35                          # 0..1: how often this rule is right when it fires
    priority: 10                              # higher wins when several rules match
    requires: [cuda]                          # evidence sources; absent → the rule is skipped
    when: cuda_error == "cudaErrorIllegalAddress"   # a rule-engine expression over Evidence
    explain: {what: ..., why: ..., fix: ..., caveats: ...}
    references: [https://...]
    speaks_about: contract                    # optional: contract (default) | probe, see below
    examples:
      match:    [{log: "..."}]                # each runs through the collectors and must match
      no_match: [{log: "..."}]

``speaks_about`` says what a finding of the rule is about: the target's declared contract (its own
sizes and inputs, the default), or a *probe* of ``kdiag run`` (an input outside that contract).  The
matcher ranks a run's findings with it: a failure inside the contract outranks a probe's finding,
and for a run that passed at its declared sizes the probe's finding leads.

Everything that can be wrong with a rule is found when it loads — a missing or unknown
field, a typo'd evidence symbol, a type error, a bad regex — and reported with the
file, the line and the reason; :func:`load_rules` collects *every* offender before it
raises, so one lint run lists them all.  Rules never execute code.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path

from diagnose.family_rules import FamilyCondition, _catalogue_rules, family_rule  # noqa: F401 (re-exported)
from diagnose.rule_file import parse_rule_file
from diagnose.rule_model import (  # noqa: F401  (re-exported: the rule base's public names)
    CATEGORIES,
    DEFAULT_RULES_DIR,
    EXAMPLE_KEYS,
    EXPLAIN_OPTIONAL,
    EXPLAIN_REQUIRED,
    FIX_FRAMEWORKS,
    KEBAB,
    OPTIONAL,
    REQUIRED,
    SPEAKS_ABOUT,
    STATUSES,
    Example,
    Explain,
    Rule,
    RuleLoadError,
    RuleProblem,
    RuleSet,
    bundled_rules_dir,
)
from diagnose.ruleexpr import compile_expression  # noqa: F401 (re-exported)


def rule_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.yaml") if p.is_file()) + sorted(
        p for p in root.rglob("*.yml") if p.is_file()
    )


def load_rules(
    root: Path | str | None = None,
    *,
    include_deprecated: bool = False,
    extra: Iterable[Path] = (),
    catalogue: bool | None = None,
    calibrate: bool | None = None,
) -> RuleSet:
    """Load every rule under ``root`` (default: the bundled rules/); raise RuleLoadError listing all problems.

    ``catalogue``: add the rules of the decided message families (diagnose/data/catalogue/); by
    default only to the bundled rule base, so a rules folder of one's own stands alone.
    ``calibrate``: a rule's confidence is the calibrated one (diagnose/data/calibration.json); by
    default for the bundled rule base only."""
    base = Path(root) if root is not None else DEFAULT_RULES_DIR
    if not base.exists():
        raise RuleLoadError([RuleProblem(str(base), 0, "rules directory does not exist")])
    bundled = base.resolve() == DEFAULT_RULES_DIR.resolve()
    # the bundled rule base as it comes (what every command loads) is kept between runs (diagnose.rule_cache)
    key, stale = None, False
    if (
        bundled
        and base.is_dir()
        and not include_deprecated
        and not extra
        and catalogue is not False
        and calibrate is not False
    ):
        from diagnose.catalogue import default_loaded

        # a catalogue this process loaded before the key was taken may be older than the files the key hashes
        stale = default_loaded()
        key, kept = _kept(base)
        if kept is not None:
            return kept
    ruleset = _load(base, include_deprecated=include_deprecated, extra=extra, catalogue=catalogue, calibrate=calibrate)
    if key is not None and not stale:
        from diagnose import rule_cache
        from diagnose.catalogue import default_catalogue

        # kept only under the key of what was loaded: files edited while it loaded leave it unkept
        if _same_key(base, key):
            rule_cache.store(key, ruleset, default_catalogue())
    return ruleset


def _same_key(base: Path, key: str) -> bool:
    """Whether the bundled rule base under ``base`` still has the content key ``key``."""
    from diagnose import rule_cache

    try:
        return rule_cache.content_key(base) == key
    except Exception:
        return False


def _kept(base: Path) -> tuple[str | None, RuleSet | None]:
    """The content key of the bundled rule base under ``base`` and the rule set kept under it, if any."""
    from diagnose import rule_cache
    from diagnose.catalogue import use_default

    if rule_cache.cache_dir() is None:
        return None, None
    try:
        key = rule_cache.content_key(base)
    except Exception:  # a file that cannot be read: loaded from the files, and not kept
        return None, None
    kept = rule_cache.read(key)
    if kept is None:
        return key, None
    ruleset, catalogue = kept
    use_default(catalogue)
    return key, ruleset


def _load(
    base: Path,
    *,
    include_deprecated: bool,
    extra: Iterable[Path],
    catalogue: bool | None,
    calibrate: bool | None,
) -> RuleSet:
    paths = [base] if base.is_file() else rule_files(base)
    paths += list(extra)
    rules: list[Rule] = []
    problems: list[RuleProblem] = []
    seen: dict[str, str] = {}
    for path in paths:
        rule, probs = parse_rule_file(path, root=base if base.is_dir() else base.parent)
        problems.extend(probs)
        if rule is None:
            continue
        if rule.id in seen:
            problems.append(RuleProblem(rule.path, 1, f"duplicate rule id {rule.id!r} (also in {seen[rule.id]})"))
            continue
        seen[rule.id] = rule.path
        if rule.status == "deprecated" and not include_deprecated:
            continue
        rules.append(rule)
    if catalogue is None:
        catalogue = base.resolve() == DEFAULT_RULES_DIR.resolve()
    if catalogue:
        rules.extend(_catalogue_rules(seen, problems))
    if problems:
        raise RuleLoadError(problems)
    if calibrate is None:
        calibrate = base.resolve() == DEFAULT_RULES_DIR.resolve()
    if calibrate:
        rules = _calibrated(rules)
    return RuleSet(rules=tuple(rules), root=str(base))


def _calibrated(rules: list[Rule]) -> list[Rule]:
    import dataclasses

    from diagnose import calibration
    from diagnose.catalogue_candidates import CANDIDATE_MAX

    confs = calibration.rule_confidences((r.id, prior_group(r), r.confidence) for r in rules)
    out = []
    for r in rules:
        conf = confs[r.id]
        if "candidate" in r.tags:  # a message that does not decide alone never decides, whatever a few cases say
            conf = min(conf, CANDIDATE_MAX)
        out.append(dataclasses.replace(r, confidence=conf, authored_confidence=r.confidence))
    return out


def prior_group(rule: Rule) -> str:
    """The group whose measured precision a rule's confidence is shrunk toward: its category, except for a
    rule that decides from a controlled run (``requires: [run, ...]``).  The category priors measure how
    often rules were right reading public logs at first sight, which no such rule ever does: a rule of a
    group with no measure keeps its authored confidence as the prior (diagnose.calibration.prior)."""
    return f"run/{rule.category}" if "run" in rule.requires else rule.category


@functools.cache
def default_rules() -> RuleSet:
    return load_rules()
