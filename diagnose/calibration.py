"""Calibrated confidence: a rule's confidence is its measured precision on the labelled corpus.

``diagnose/data/calibration.json`` (written by ``kdiag corpus check --calibrate``) keeps, per rule,
how many labelled cases the rule decided (was the top finding of) and how many of those it got right
(its category is the label's).  At load, a rule's confidence becomes

    (right + K * authored) / (cases + K)

— the measured precision shrunk toward the author's value, which counts as K cases: a rule seen on
few cases keeps roughly what its author said, a rule seen on many says what it measured.  The author's
value stays on the rule as ``authored_confidence``.

The cases it is measured on: the corpus' real public reports (``public/``, ``holdout/``,
``holdout2/``, ``holdout3/``, ``holdout5/``, ``holdout6/``) — not the held-out sets kept for judging
(``holdout4/``, ``holdout9/``), and not what the project made for its own rules (the rules' match examples, tool output captured here, the
runnable kernels' recorded runs), which a rule gets right nearly always.  The
counts are taken with the authored confidences, so the file does not depend on itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CALIBRATION_FILE = Path(__file__).resolve().parent / "data" / "calibration.json"
K = 1.0
#: corpus suites never learned from (a held-out set that judges the calibration)
HELD_OUT = ("holdout4/", "holdout9/")
NOT_CALIBRATED = ("rule-examples",)
#: cases the project made for its own rules (tool output captured here, the runnable kernels' recorded
#: runs): right nearly always, they would make every confidence say more than it means on real reports
MADE_HERE = ("captured/", "kernels/", "healthy/")
BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class Tally:
    cases: int
    right: int


def calibration_suite(suite: str) -> bool:
    """Whether a corpus suite's cases are learned from."""
    return suite not in NOT_CALIBRATED and not suite.startswith(HELD_OUT + MADE_HERE)


def calibrated(authored: float, tally: Tally | None, k: float = K) -> float:
    if tally is None or tally.cases <= 0:
        return authored
    return round((tally.right + k * authored) / (tally.cases + k), 3)


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
            out[str(rid)] = Tally(cases=t["cases"], right=t["right"])
    return out, k


def tallies(decisions: Iterable[tuple[str, bool]]) -> dict[str, Tally]:
    """(rule that decided a case, whether its category was the label's) → per-rule tallies."""
    n: dict[str, list[int]] = {}
    for rule, right in decisions:
        t = n.setdefault(rule, [0, 0])
        t[0] += 1
        t[1] += int(right)
    return {r: Tally(cases=c, right=w) for r, (c, w) in sorted(n.items())}


def to_json(tally: Mapping[str, Tally], authored: Mapping[str, float], k: float = K) -> str:
    data: dict[str, Any] = {
        "about": "kdiag corpus check --calibrate: per rule, the labelled cases it decided (outside the held-out "
        "set and the rules' own examples) and how many it got right; a rule's confidence is "
        "(right + k * authored) / (cases + k)",
        "k": k,
        "held_out": list(HELD_OUT),
        "rules": {
            rid: {
                "cases": t.cases,
                "right": t.right,
                "authored": authored.get(rid),
                "calibrated": calibrated(authored[rid], t, k) if rid in authored else None,
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
