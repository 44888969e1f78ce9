"""Calibrated confidence: a rule's confidence predicts its precision on logs nobody has looked at.

``diagnose/data/calibration.json`` (written by ``kdiag corpus check --calibrate``) keeps, per rule,
how many labelled cases the rule decided (was the top finding of), how many of those it got right
(its category is the label's) and in how many corpus suites: the development tally.  Every development
set was learned from (rules were written or narrowed from its cases), so that tally flatters the rules.
``diagnose/data/first_sight.json`` (written by ``scripts/first-sight``) keeps what the rules did on each
blind set at the commit it was first measured, before anything was learned from it: per rule the
answers it gave and how many were right — the first-sight tally.  At load, a rule's confidence becomes

    (first-sight right + d * right + k * prior) / (first-sight cases + d * cases + k)

with the shipped :data:`FIRST_SIGHT_FORM` (k = 2, d = 1.75): both measurements shrunk toward a prior
worth k cases.  The prior is the first-sight precision of the rule's category (every first-sight answer of
that category's rules pooled, itself shrunk toward the first-sight precision of all rules by ``PRIOR_CASES``
cases): what a rule of that category has been worth on an unseen log.  A rule authored below the answer threshold (0.5: it is not meant to decide
alone) keeps its authored value as the prior, so no category lifts it into answering.  The author's
value stays on the rule as ``authored_confidence``.

Without a first-sight record (the file absent or unreadable) the form is the earlier one: the
development tally alone, k = 1, the prior half the author's value and half the category's development
precision.

The form was chosen by leave-one-set-out cross-validation over the first-sight answers themselves
(``scripts/calibration-cv --first-sight``): for each blind set, every rule's confidence is computed
without that set's first-sight record (and, with ``--dev-out``, without its development tally), given to
that set's first-sight answers, and the answers of all sets pooled.  Of the forms whose development
answers keep an expected calibration error of 0.07 or less as the script estimates it and under 0.08 in
``kdiag corpus check`` (which classifies again), this one has the lowest error on the first-sight answers
(0.080 against 0.094 for the development-only form with each set's development tally left out, 0.087
against 0.103 with it kept) among those whose answers at 0.8 or more stay right at least 91 % of the time
(against 85 % for the development-only form).  docs/KB.md has the tables.

The cases it is measured on: the corpus' real public reports (``public/``, ``holdout/``,
``holdout2/``, ``holdout3/``, ``holdout5/`` to ``holdout13/``) — not the held-out sets
kept for judging (``holdout4/``, ``holdout14/``, ``holdout15/``), and not what the project made for its own rules (the
rules' match examples, tool output captured here, the runnable kernels' recorded runs), which a rule
gets right nearly always.  One exception: a rule that decided none of those real reports (a rule over
``kdiag run``'s own evidence: the comparison with the reference, the probes, the bounds checks) takes its
tally from the recorded runs of the blind kernel rounds (:data:`RUN_SUITES`), the population it answers
on; without it every such rule loaded with its category's prior, and a run's answer and its alternatives
carried one confidence.  The counts are taken with the authored confidences, so the file does not depend
on itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

CALIBRATION_FILE = Path(__file__).resolve().parent / "data" / "calibration.json"
#: the blind sets' first measurements replayed (scripts/first-sight)
FIRST_SIGHT_FILE = Path(__file__).resolve().parent / "data" / "first_sight.json"
K = 1.0
#: the prior's share of the author's value (the rest: the rule's category's measured precision)
AUTHORED_WEIGHT = 0.5
#: a category's pooled precision is shrunk toward that of every rule by this many cases
PRIOR_CASES = 2.0
#: a rule authored below this is not meant to decide alone: its prior stays its authored value
ANSWERS_FROM = 0.5
#: corpus suites never learned from (a held-out set that judges the calibration)
HELD_OUT = ("holdout4/", "holdout14/", "holdout15/")
NOT_CALIBRATED = ("rule-examples",)
#: cases the project made for its own rules (tool output captured here, the runnable kernels' recorded
#: runs): right nearly always, they would make every confidence say more than it means on real reports
MADE_HERE = ("captured/", "kernels/", "healthy/")
#: the recorded ``kdiag run`` of the blind kernel rounds (corpus/kernels/: kernels written and labelled before kdiag
#: ran on them): the only measurement of a rule that decided no real report, since a rule that reads a run's
#: comparison, probes or bounds checks answers on runs, never on a pasted log; such a rule's tally is taken here
RUN_SUITES = ("kernels/",)
BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class Tally:
    cases: int
    right: int
    suites: int = 1  # how many corpus suites the cases came from


@dataclass(frozen=True)
class Form:
    """How tallies become confidences (the shipped form is the default; scripts/calibration-cv tries
    others): shrinkage ``k``, the prior's ``authored_weight``, and the least cases and suites a tally
    needs to count at all (below them the rule keeps its prior)."""

    k: float = K
    authored_weight: float = AUTHORED_WEIGHT
    min_cases: int = 1
    min_suites: int = 1
    #: with a first-sight record: what one development case counts next to one first-sight case
    dev_weight: float = 1.0


#: the form shipped when a first-sight record is there (chosen by scripts/calibration-cv --first-sight)
FIRST_SIGHT_FORM = Form(k=2, authored_weight=0, dev_weight=1.75)


def shipped_form(first_sight: Mapping[str, Tally], k: float = K) -> Form:
    """The form rules load with: :data:`FIRST_SIGHT_FORM` with a first-sight record, else the
    development-only form with the calibration file's ``k``."""
    return FIRST_SIGHT_FORM if first_sight else Form(k=k)


def calibration_suite(suite: str) -> bool:
    """Whether a corpus suite's cases are learned from."""
    return suite not in NOT_CALIBRATED and not suite.startswith(HELD_OUT + MADE_HERE)


def calibrated(authored: float, tally: Tally | None, k: float = K, prior: float | None = None) -> float:
    """``(right + k * prior) / (cases + k)``; the prior defaults to the authored value."""
    p = authored if prior is None else prior
    if tally is None or tally.cases <= 0:
        return round(p, 3)
    return round((tally.right + k * p) / (tally.cases + k), 3)


def category_priors(tally: Mapping[str, Tally], categories: Mapping[str, str]) -> dict[str, float]:
    """Per category, the pooled precision of its rules' tallies, shrunk toward that of every rule by
    :data:`PRIOR_CASES` cases (rules not in ``categories`` are left out)."""
    known = {rid: t for rid, t in tally.items() if rid in categories}
    cases = sum(t.cases for t in known.values())
    if cases <= 0:
        return {}
    overall = sum(t.right for t in known.values()) / cases
    pooled: dict[str, list[int]] = {}
    for rid, t in known.items():
        c = pooled.setdefault(categories[rid], [0, 0])
        c[0] += t.cases
        c[1] += t.right
    return {cat: (r + PRIOR_CASES * overall) / (n + PRIOR_CASES) for cat, (n, r) in sorted(pooled.items())}


def prior(authored: float, category_prior: float | None, form: Form = Form()) -> float:
    """What a rule's tally is shrunk toward: the authored value blended with its category's precision,
    or the authored value alone for a rule authored below :data:`ANSWERS_FROM` (or with no category
    measured)."""
    if category_prior is None or authored < ANSWERS_FROM:
        return authored
    return form.authored_weight * authored + (1 - form.authored_weight) * category_prior


def first_sight_priors(first_sight: Mapping[str, Tally], categories: Mapping[str, str]) -> dict[str, float]:
    """Per category, the precision its rules' first-sight answers had, shrunk toward that of every rule's
    by :data:`PRIOR_CASES` cases: what a rule of the category is worth on a log nobody has looked at."""
    return category_priors(first_sight, categories)


def confidences(
    rules: Iterable[tuple[str, str, float]],
    tally: Mapping[str, Tally],
    form: Form = Form(),
    first_sight: Mapping[str, Tally] | None = None,
) -> dict[str, float]:
    """(rule id, category, authored confidence) → the rule's calibrated confidence under ``form``.

    Without ``first_sight`` (or with none measured): the development tally shrunk toward the prior of
    :func:`prior`, the category's part measured on the development tally.  With it: the evidence is the
    first-sight tally plus the development tally counted with ``form.dev_weight``, and the category's
    part of the prior is the category's first-sight precision."""
    rules = list(rules)
    categories = {rid: cat for rid, cat, _ in rules}
    fs = {rid: t for rid, t in (first_sight or {}).items() if t.cases > 0}
    priors = first_sight_priors(fs, categories) if fs else category_priors(tally, categories)
    dev_weight = form.dev_weight if fs else 1.0
    out = {}
    for rid, cat, authored in rules:
        t = tally.get(rid)
        if t is not None and (t.cases < form.min_cases or t.suites < form.min_suites):
            t = None
        f = fs.get(rid)
        p = prior(authored, priors.get(cat), form)
        cases = dev_weight * (t.cases if t else 0) + (f.cases if f else 0)
        right = dev_weight * (t.right if t else 0) + (f.right if f else 0)
        value = round((right + form.k * p) / (cases + form.k), 3) if cases > 0 else round(p, 3)
        both = _sum(t, f)
        out[rid] = held_below_threshold(authored, both, value)
    return out


def _sum(a: Tally | None, b: Tally | None) -> Tally | None:
    if a is None or b is None:
        return a or b
    return Tally(cases=a.cases + b.cases, right=a.right + b.right, suites=a.suites + b.suites)


def wilson_lower(right: int, cases: int, z: float = 1.96) -> float:
    """The lower end of the 95 % Wilson interval of a measured precision ``right / cases``."""
    if cases <= 0:
        return 0.0
    p = right / cases
    centre = p + z * z / (2 * cases)
    spread = z * math.sqrt(p * (1 - p) / cases + z * z / (4 * cases * cases))
    return (centre - spread) / (1 + z * z / cases)


#: the measured precision a rule authored to abstain needs before its tally lets it answer: three answers in four
#: right; below that, abstaining with it first among the candidates serves better than an answer wrong one time in
#: three (a bare out-of-memory text is the problem size about two times in three, another process's memory or a leak
#: the third)
LIFT_PRECISION = 0.75


def held_below_threshold(authored: float, tally: Tally | None, value: float) -> float:
    """A rule authored below :data:`ANSWERS_FROM` is one its author meant not to decide alone (an
    error text that fits several owners).  Its tally may still lift it past the answer threshold, but
    only when the measurement shows it decides: the 95 % lower bound of its measured precision is at
    the threshold or above, and the precision itself at :data:`LIFT_PRECISION`.  Otherwise it stays just
    under the threshold, however its cases happened to fall (26 of 51 right is a coin flip, not a reason
    to answer; 36 of 57 is not one either)."""
    if authored >= ANSWERS_FROM or value < ANSWERS_FROM or tally is None:
        return value
    if wilson_lower(tally.right, tally.cases) >= ANSWERS_FROM and tally.right >= LIFT_PRECISION * tally.cases:
        return value
    return round(ANSWERS_FROM - 0.01, 3)


def load(path: Path | None = None) -> tuple[dict[str, Tally], float]:
    """The tallies of the calibration file (empty when it is absent or unreadable) and its K."""
    path = path or CALIBRATION_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, K
    if not isinstance(data, dict) or not isinstance(data.get("rules"), dict):
        return {}, K
    k = data.get("k", K)
    k = float(k) if isinstance(k, int | float) and not isinstance(k, bool) and k > 0 else K
    out = {}
    for rid, t in data["rules"].items():
        ok = isinstance(t, dict) and isinstance(t.get("cases"), int) and isinstance(t.get("right"), int)
        if ok and 0 <= t["right"] <= t["cases"]:
            suites = t.get("suites", 1)
            suites = suites if isinstance(suites, int) and not isinstance(suites, bool) and suites >= 1 else 1
            out[str(rid)] = Tally(cases=t["cases"], right=t["right"], suites=suites)
    return out, k


def load_first_sight(path: Path | None = None) -> dict[str, Tally]:
    """Per rule, the first-sight tally of ``first_sight.json`` (empty when it is absent or unreadable)."""
    path = path or FIRST_SIGHT_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(rules, dict):
        return {}
    out = {}
    for rid, t in rules.items():
        if not isinstance(t, dict):
            continue
        cases, right, suites = (t.get(f, 1 if f == "suites" else None) for f in ("cases", "right", "suites"))
        if not (_count(cases) and _count(right) and _count(suites)):
            continue
        if 0 <= right <= cases and cases > 0:
            out[str(rid)] = Tally(cases=cases, right=right, suites=max(1, suites))
    return out


def _count(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def rule_confidences(rules: Iterable[tuple[str, str, float]]) -> dict[str, float]:
    """(rule id, category, authored confidence) → the confidence it loads with: the committed calibration
    file and first-sight record under :func:`shipped_form`."""
    tally, k = load()
    first_sight = load_first_sight()
    return confidences(rules, tally, shipped_form(first_sight, k), first_sight)


def tallies(decisions: Iterable[tuple[str, bool] | tuple[str, bool, str]]) -> dict[str, Tally]:
    """(rule that decided a case, whether its category was the label's[, the case's suite]) → per-rule
    tallies."""
    n: dict[str, list[int]] = {}
    seen: dict[str, set[str]] = {}
    for rule, right, *suite in decisions:
        t = n.setdefault(rule, [0, 0])
        t[0] += 1
        t[1] += int(right)
        seen.setdefault(rule, set()).update(suite)
    return {r: Tally(cases=c, right=w, suites=max(1, len(seen[r]))) for r, (c, w) in sorted(n.items())}


def to_json(
    tally: Mapping[str, Tally],
    authored: Mapping[str, float],
    categories: Mapping[str, str],
    first_sight: Mapping[str, Tally] | None = None,
) -> str:
    """The calibration file: the development tallies, and per rule the confidence it loads with (with
    ``first_sight``, by default the committed first-sight record)."""
    fs = load_first_sight() if first_sight is None else first_sight
    form = shipped_form(fs)
    known = [(rid, categories[rid], authored[rid]) for rid in tally if rid in authored and rid in categories]
    conf = confidences(known, tally, form, fs)
    priors = first_sight_priors(fs, categories) if fs else category_priors(tally, categories)
    data: dict[str, Any] = {
        "about": "kdiag corpus check --calibrate: per rule, the labelled cases it decided (outside the held-out "
        "set and the rules' own examples), how many it got right and in how many suites; a rule's confidence "
        "is (right + k * prior) / (cases + k) over these cases counted with dev_weight and its first-sight "
        "cases (first_sight.json), the prior blending its authored value with its category's first-sight "
        "precision (diagnose/calibration.py)",
        "k": K,
        "form": {"k": form.k, "authored_weight": form.authored_weight, "dev_weight": form.dev_weight},
        "first_sight": bool(fs),
        "held_out": list(HELD_OUT),
        "category_priors": {c: round(p, 3) for c, p in priors.items()},
        "rules": {
            rid: {
                "cases": t.cases,
                "right": t.right,
                "suites": t.suites,
                "authored": authored.get(rid),
                "calibrated": conf.get(rid),
            }
            for rid, t in sorted(tally.items())
        },
    }
    return json.dumps(data, indent=1) + "\n"


# --- reliability: answers binned by confidence -------------------------------------------------


def _bin_label(i: int) -> str:
    lo = BINS[i]
    if i == 0:
        return f"<{BINS[1]:.1f}"
    if i == len(BINS) - 1:
        return f">={lo:.1f}"
    return f"{lo:.1f}-{BINS[i + 1]:.1f}"


def reliability(answers: Iterable[tuple[float, bool]]) -> dict[str, Any]:
    """Answers (confidence, right) binned by confidence: per bin the count, mean confidence and the
    share right; and the expected calibration error (the count-weighted gap between the two)."""
    rows: list[list[tuple[float, bool]]] = [[] for _ in BINS]
    for conf, right in answers:
        i = max(j for j, lo in enumerate(BINS) if conf >= lo) if conf >= 0 else 0
        rows[i].append((conf, right))
    total = sum(len(r) for r in rows)
    bins = []
    ece = 0.0
    for i, r in enumerate(rows):
        if not r:
            bins.append({"bin": _bin_label(i), "answers": 0, "confidence": None, "right": None})
            continue
        conf = sum(c for c, _ in r) / len(r)
        acc = sum(ok for _, ok in r) / len(r)
        ece += len(r) / total * abs(acc - conf)
        bins.append({"bin": _bin_label(i), "answers": len(r), "confidence": round(conf, 3), "right": round(acc, 3)})
    return {"answers": total, "bins": bins, "ece": round(ece, 4) if total else None}
