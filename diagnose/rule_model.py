"""The rule base's data: what a rule is (its fields, constants and the frozen records), apart from
how rule files are read (:mod:`diagnose.rule_file`) and loaded (:mod:`diagnose.rules`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CATEGORIES = ("kernel-logic", "environment", "runtime-assumption")
STATUSES = ("stable", "experimental", "deprecated")
REQUIRED = (
    "id",
    "title",
    "category",
    "failure_mode",
    "status",
    "confidence",
    "priority",
    "requires",
    "when",
    "explain",
    "references",
    "examples",
)
OPTIONAL = ("tags", "notes", "failure_mode_from", "speaks_about")
SPEAKS_ABOUT = ("contract", "probe")
EXPLAIN_REQUIRED = ("what", "why", "fix")
EXPLAIN_OPTIONAL = ("caveats", "example")
#: ``fix`` may be a mapping: ``default`` plus a text per framework the evidence shows (diagnose.explain)
FIX_FRAMEWORKS = ("cuda", "triton", "torch", "jax", "cupy", "numba")
EXAMPLE_KEYS = ("log", "exit_code", "signal", "timed_out", "evidence", "note", "origin")
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_SYMBOL = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\bsources\b")
# `log_text =~~ "..."` / `=~ "..."`: the regexes a rule searches the raw text with (for citing lines)
_TEXT_REGEX = re.compile(r'log_text\s*=~~?\s*"((?:[^"\\]|\\.)*)"')

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def bundled_rules_dir() -> Path:
    """Where the bundled rules are: inside the installed package (``diagnose/rulebase/``, a wheel or
    ``pip install .``), else the top-level ``rules/`` folder next to the package (a checkout or an
    editable install; the folder the rules are edited in)."""
    here = Path(__file__).resolve().parent
    packaged = here / "rulebase"
    return packaged if packaged.is_dir() else here.parent / "rules"


DEFAULT_RULES_DIR = bundled_rules_dir()


@dataclass(frozen=True)
class RuleProblem:
    path: str
    line: int
    message: str
    severity: str = "error"  # error | warning (``kdiag rules lint`` fails on errors; --strict on warnings too)

    def __str__(self) -> str:
        head = "warning: " if self.severity == "warning" else ""
        return f"{self.path}:{self.line}: {head}{self.message}"


class RuleLoadError(Exception):
    """One or more rule files are broken; ``problems`` lists every one."""

    def __init__(self, problems: list[RuleProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Explain:
    what: str
    why: str
    fix: str
    caveats: str | None = None
    example: str | None = None
    fixes: tuple[tuple[str, str], ...] = ()  # (framework, fix) when ``fix`` was a mapping; ``fix`` is its default


@dataclass(frozen=True)
class Example:
    log: str = ""
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False
    evidence: Mapping[str, Any] | None = None
    note: str | None = None
    origin: str | None = None
    line: int = 0


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    category: str
    failure_mode: str
    status: str
    confidence: float
    priority: int
    requires: tuple[str, ...]
    when: str
    explain: Explain
    references: tuple[str, ...]
    match_examples: tuple[Example, ...]
    no_match_examples: tuple[Example, ...]
    path: str
    line: int
    symbols: tuple[str, ...]  # evidence symbols `when` reads
    text_patterns: tuple[str, ...]  # regexes `when` runs over log_text (to cite the lines they hit)
    tags: tuple[str, ...] = ()
    speaks_about: str = "contract"  # contract | probe: what the finding is about (ranking, diagnose.matcher)
    compiled: Any = field(default=None, compare=False, repr=False)  # rule_engine.Rule
    precheck: Any = field(default=None, compare=False, repr=False)  # diagnose.prefilter: a necessary condition
    # diagnose.prefilter.gate_of: keys of which a record holds one when the pre-check passes (the matcher's index)
    gate: tuple[tuple[str, str, str], ...] | None = field(default=None, compare=False, repr=False)
    # an evidence symbol whose value, when set, is the finding's failure mode (``kb_label_mode``: a person's
    # label); ``failure_mode`` is then what the report says when the symbol is empty
    failure_mode_from: str | None = None
    # the author's confidence when ``confidence`` is the calibrated one (diagnose.calibration)
    authored_confidence: float | None = None

    def mode_for(self, context: Mapping[str, Any]) -> str:
        """The failure mode a match of this rule on ``context`` reports."""
        if self.failure_mode_from:
            value = context.get(self.failure_mode_from)
            if isinstance(value, str) and KEBAB.match(value):
                return value
        return self.failure_mode

    @property
    def specificity(self) -> int:
        """How much evidence the rule weighs: distinct symbols read plus sources required."""
        return len(self.symbols) + len(self.requires)

    def matches(self, context: Mapping[str, Any], *, precheck: bool = True) -> bool:
        if precheck and self.precheck is not None and not self.precheck(context):
            return False  # a necessary condition fails: rule-engine would say False too
        return bool(self.compiled.matches(context))


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    root: str

    def __iter__(self):
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def get(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)
