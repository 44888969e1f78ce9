"""Measure the rule base against labelled cases: accuracy, coverage, precision, confusion matrix."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from diagnose.report import Report

CATS = ("kernel-logic", "environment", "runtime-assumption", "unknown")
#: the label a healthy (non-failing) case carries; right when no rule fires and the status is no-failure
HEALTHY = "none"


@dataclass(frozen=True)
class Score:
    total: int
    labelled: int
    correct: int  # predicted category == labelled category
    answered: int  # predicted something other than unknown
    answered_correct: int
    mode_correct: int  # failure mode too
    healthy: int
    healthy_quiet: int  # healthy cases on which no rule fired
    confusion: dict[tuple[str, str], int]  # (label, predicted) → count
    misses: tuple[tuple[str, str, str], ...]  # (id, label, predicted)
    healthy_right: int = 0  # healthy cases with no finding and status no-failure
    missed_failures: int = 0  # labelled failures that kdiag called no-failure

    @property
    def accuracy(self) -> float:
        return self.correct / self.labelled if self.labelled else 0.0

    @property
    def precision(self) -> float:
        return self.answered_correct / self.answered if self.answered else 0.0

    @property
    def coverage(self) -> float:
        return self.answered / self.labelled if self.labelled else 0.0


def score(reports: Sequence[Report]) -> Score:
    confusion: Counter[tuple[str, str]] = Counter()
    labelled = correct = answered = answered_correct = mode_correct = healthy = quiet = healthy_right = missed = 0
    misses = []
    for r in reports:
        want = r.label.get("category")
        if not want:
            continue
        if want == HEALTHY:
            healthy += 1
            fired = bool(r.diagnosis and r.diagnosis.findings)
            quiet += not fired
            right = not fired and r.status == "no-failure"
            healthy_right += right
            if not right:
                misses.append((r.id, HEALTHY, r.category))
            continue
        labelled += 1
        missed += r.status == "no-failure"
        got = r.category if r.category in CATS else "unknown"
        confusion[(want, got)] += 1
        if got != "unknown":
            answered += 1
        if got == want:
            correct += 1
            answered_correct += got != "unknown"
            mode_correct += r.failure_mode == r.label.get("failure_mode")
        else:
            misses.append((r.id, want, got))
    return Score(
        total=len(reports),
        labelled=labelled,
        correct=correct,
        answered=answered,
        answered_correct=answered_correct,
        mode_correct=mode_correct,
        healthy=healthy,
        healthy_quiet=quiet,
        healthy_right=healthy_right,
        missed_failures=missed,
        confusion=dict(confusion),
        misses=tuple(misses),
    )


def write_score(s: Score, out: TextIO) -> None:
    out.write(
        f"labelled failures: {s.labelled}   category right: {s.correct} ({s.accuracy:.1%})   "
        f"answered (not unknown): {s.answered} ({s.coverage:.1%})   precision of answers: {s.precision:.1%}\n"
    )
    out.write(f"failure mode right too: {s.mode_correct}\n")
    if s.missed_failures:
        out.write(f"labelled failures called no-failure: {s.missed_failures}\n")
    if s.healthy:
        out.write(
            f"healthy runs: {s.healthy}, no rule fired on {s.healthy_quiet}, "
            f"status no-failure with no finding on {s.healthy_right}\n"
        )
    out.write("\nconfusion (rows: label, columns: kdiag)\n")
    short = {"kernel-logic": "kernel", "environment": "env", "runtime-assumption": "assume", "unknown": "unknown"}
    out.write(f"{'':<20}" + "".join(f"{short[c]:>9}" for c in CATS) + "\n")
    for want in CATS[:3]:
        out.write(f"{want:<20}" + "".join(f"{s.confusion.get((want, got), 0):>9}" for got in CATS) + "\n")
    if s.misses:
        out.write("\nmisses:\n")
        for rid, want, got in s.misses:
            out.write(f"  {rid:<48} label {want:<20} kdiag {got}\n")


# --- figures per slice: framework, message family -------------------------------------------------


@dataclass(frozen=True)
class Slice:
    labelled: int = 0
    correct: int = 0
    answered: int = 0
    answered_correct: int = 0

    def add(self, want: str, got: str) -> Slice:
        return Slice(
            labelled=self.labelled + 1,
            correct=self.correct + (got == want),
            answered=self.answered + (got != "unknown"),
            answered_correct=self.answered_correct + (got == want and got != "unknown"),
        )


def family_of(r: Report) -> str:
    """The message family a report's evidence matched first (errors before warnings), else 'none'."""
    concept = r.evidence.concept if r.evidence is not None else None
    if concept is None or not concept.families:
        return "none"
    return concept.family or concept.families[0]


def slices(reports: Sequence[Report]) -> dict[str, dict[str, Slice]]:
    """Labelled failures grouped by the case's framework and by the message family kdiag matched."""
    out: dict[str, dict[str, Slice]] = {"framework": {}, "family": {}}
    for r in reports:
        want = r.label.get("category")
        if not want or want == HEALTHY:
            continue
        got = r.category if r.category in CATS else "unknown"
        for kind, key in (("framework", r.label.get("framework") or "unlabelled"), ("family", family_of(r))):
            out[kind][key] = out[kind].get(key, Slice()).add(want, got)
    return out


def write_slices(groups: dict[str, dict[str, Slice]], out: TextIO) -> None:
    for kind, table in groups.items():
        if not table or set(table) <= {"unlabelled", "none"}:
            continue
        out.write(f"\nby {kind}:{'':<{max(1, 37 - len(kind))}}cases    right   answered  precision\n")
        for key, s in sorted(table.items(), key=lambda kv: (-kv[1].labelled, kv[0])):
            right = s.correct / s.labelled if s.labelled else 0.0
            answered = s.answered / s.labelled if s.labelled else 0.0
            prec = f"{s.answered_correct / s.answered:>9.0%}" if s.answered else f"{'-':>9}"
            out.write(f"  {key:<40} {s.labelled:>5} {right:>8.0%} {answered:>10.0%} {prec}\n")
