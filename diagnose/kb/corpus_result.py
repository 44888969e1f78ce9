"""The result of `kdiag corpus check`: each replayed :class:`Case` and the figures over them (:class:`Result`).

:mod:`diagnose.kb.corpus_check` collects and replays the cases and renders a result; this module holds
what a result is and how its figures (accuracy, confusion, per rule, per mode, calibration, changes
against the baseline) are computed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from diagnose.evaluate import HEALTHY

CATS = ("kernel-logic", "environment", "runtime-assumption")


@dataclass(frozen=True)
class Case:
    id: str
    suite: str  # the corpus file, or "rule-examples"
    category: str  # labelled
    failure_mode: str
    got_category: str
    got_mode: str
    got_rule: str | None
    fired: tuple[str, ...]  # every rule that matched (findings)
    confidence: float = 0.0  # the diagnosis' confidence (an abstention's: its best candidate's)
    top_rule: str | None = None  # the best finding's rule, abstained or not
    top_category: str = ""  # and its category

    @property
    def right(self) -> bool:
        return self.right_for(self.category)

    def right_for(self, category: str) -> bool:
        """Right against ``category`` as the label (a healthy case: no rule fired)."""
        if category == HEALTHY:
            return not self.fired
        return self.got_category == category

    @property
    def mode_right(self) -> bool:
        return self.right and (self.category == HEALTHY or self.got_mode == self.failure_mode)

    def result(self) -> list[Any]:
        return [self.got_category, self.got_mode, self.got_rule]


@dataclass
class Result:
    cases: list[Case]
    not_replayed: list[dict[str, str]]
    taxonomy: dict[str, list[str]]
    baseline: dict[str, Any] | None
    baseline_path: str | None
    excluded: dict[str, int] = field(default_factory=dict)
    rule_examples: bool = True  # the rule-example cases were checked (else the baseline's are not compared)

    # -- figures ------------------------------------------------------------------

    @property
    def accuracy(self) -> float:
        return sum(c.right for c in self.cases) / len(self.cases) if self.cases else 0.0

    def suite_figures(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for suite in sorted({c.suite for c in self.cases}):
            cs = [c for c in self.cases if c.suite == suite]
            out[suite] = {
                "cases": len(cs),
                "right": sum(c.right for c in cs),
                "mode_right": sum(c.mode_right for c in cs),
                "accuracy": round(sum(c.right for c in cs) / len(cs), 4),
            }
        return out

    def confusion(self) -> dict[str, dict[str, int]]:
        m: dict[str, Counter[str]] = defaultdict(Counter)
        for c in self.cases:
            got = c.got_category if c.got_category in CATS else "unknown"
            if c.category == HEALTHY:
                got = "quiet" if not c.fired else got
            m[c.category][got] += 1
        return {k: dict(v) for k, v in sorted(m.items())}

    def per_rule(self) -> dict[str, dict[str, Any]]:
        """How often each rule decided a case, how often it was right (category, and mode too), and
        its recall: of the cases labelled with the rule's own mode, the share it decided rightly."""
        fired: Counter[str] = Counter()
        right: Counter[str] = Counter()
        mode_right: Counter[str] = Counter()
        modes: dict[str, str] = {}
        for c in self.cases:
            if c.got_rule is None or c.got_category == "unknown":
                continue
            fired[c.got_rule] += 1
            modes[c.got_rule] = c.got_mode
            right[c.got_rule] += c.right
            mode_right[c.got_rule] += c.right and c.got_mode == c.failure_mode
        labelled = Counter(c.failure_mode for c in self.cases)
        out = {}
        for rule in sorted(fired):
            n_mode = labelled.get(modes[rule], 0)
            out[rule] = {
                "fired": fired[rule],
                "right": right[rule],
                "mode_right": mode_right[rule],
                "precision": round(right[rule] / fired[rule], 4),
                "recall": round(mode_right[rule] / n_mode, 4) if n_mode else None,
            }
        return out

    def per_mode(self) -> dict[str, dict[str, Any]]:
        by: dict[str, list[Case]] = defaultdict(list)
        for c in self.cases:
            if c.category != HEALTHY:
                by[f"{c.category}/{c.failure_mode}"].append(c)
        return {
            k: {
                "cases": len(v),
                "category_right": sum(c.right for c in v),
                "mode_right": sum(c.mode_right for c in v),
                "coverage": round(sum(c.mode_right for c in v) / len(v), 4),
            }
            for k, v in sorted(by.items())
        }

    def modes_without_case(self) -> list[str]:
        have = {(c.category, c.failure_mode) for c in self.cases}
        return [f"{cat}/{m}" for cat, modes in self.taxonomy.items() for m in modes if (cat, m) not in have]

    def changes(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
        """(changed, regressions, new) against the baseline."""
        if self.baseline is None:
            return [], [], []
        base = self.baseline.get("cases", {})
        changed, regressions, new = [], [], []
        for c in self.cases:
            b = base.get(c.id)
            if b is None:
                new.append(c.id)
                continue
            if b["result"] != c.result():
                # judged against the label the baseline was taken with: a rule example's label is its
                # rule's category, which the change under test may itself have altered
                right_now = c.right_for(b.get("label", [c.category])[0])
                item = {
                    "id": c.id,
                    "was": b["result"],
                    "now": c.result(),
                    "right_was": b["right"],
                    "right_now": right_now,
                }
                changed.append(item)
                if b["right"] and not right_now:
                    regressions.append(item)
        current = {c.id for c in self.cases}
        for cid, b in base.items():
            if not self.rule_examples and cid.startswith("rule-examples:"):
                continue
            if cid not in current and b["right"]:
                regressions.append({"id": cid, "was": b["result"], "now": None, "right_was": True, "right_now": False})
        return changed, regressions, new

    @property
    def regressions(self) -> list[dict[str, Any]]:
        return self.changes()[1]

    # -- calibration ----------------------------------------------------------------

    def decisions(self) -> list[tuple[str, bool, str]]:
        """(best finding's rule, its category is the label's, the case's suite) for the cases calibration
        learns from — abstentions included: whether a rule abstains follows from its confidence, not the
        other way — and, for a rule none of those measures, the recorded kernel runs it decided."""
        from diagnose.calibration import RUN_SUITES, calibration_suite

        real = [
            (c.top_rule, c.top_category == c.category, c.suite)
            for c in self.cases
            if c.top_rule is not None and calibration_suite(c.suite)
        ]
        decided = {rule for rule, _, _ in real}
        runs = [  # a rule no real report measures: the blind kernel rounds' recorded runs (diagnose/calibration.py)
            (c.top_rule, c.top_category == c.category, c.suite)
            for c in self.cases
            if c.top_rule is not None and c.top_rule not in decided and c.suite.startswith(RUN_SUITES)
        ]
        return real + runs

    def calibration(self) -> dict[str, Any]:
        """The answers (a category given) binned by confidence against how often they were right, with
        the expected calibration error: on the cases calibration learns from, on the held-out sets, on every
        real public report (the two together: what a confidence is meant to describe), on what the project
        made for its own rules (captured tool output, recorded runs, rule examples), and on all."""
        from diagnose.calibration import HELD_OUT, calibration_suite, reliability

        def answers(pick: Any) -> list[tuple[float, bool]]:
            return [(c.confidence, c.right) for c in self.cases if c.got_category in CATS and pick(c)]

        return {
            "calibration_set": reliability(answers(lambda c: calibration_suite(c.suite))),
            "held_out": reliability(answers(lambda c: c.suite.startswith(HELD_OUT))),
            "real_reports": reliability(answers(lambda c: calibration_suite(c.suite) or c.suite.startswith(HELD_OUT))),
            "made_here": reliability(
                answers(lambda c: not calibration_suite(c.suite) and not c.suite.startswith(HELD_OUT))
            ),
            "all": reliability(answers(lambda c: True)),
        }

    def to_dict(self) -> dict[str, Any]:
        changed, regressions, new = self.changes()
        return {
            "cases": len(self.cases),
            "right": sum(c.right for c in self.cases),
            "accuracy": round(self.accuracy, 4),
            "mode_accuracy": round(sum(c.mode_right for c in self.cases) / len(self.cases), 4) if self.cases else 0.0,
            "suites": self.suite_figures(),
            "confusion": self.confusion(),
            "per_rule": self.per_rule(),
            "per_mode": self.per_mode(),
            "calibration": self.calibration(),
            "modes_without_case": self.modes_without_case(),
            "not_replayed": self.not_replayed,
            "excluded_rule_examples": self.excluded,
            "baseline": self.baseline_path,
            "changed": changed,
            "regressions": regressions,
            "new_cases": new,
            "misses": [
                {
                    "id": c.id,
                    "label": f"{c.category}/{c.failure_mode}",
                    "got": f"{c.got_category}/{c.got_mode}",
                    "rule": c.got_rule,
                }
                for c in self.cases
                if not c.right
            ],
        }
