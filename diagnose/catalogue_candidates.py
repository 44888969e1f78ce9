"""The candidates of a message family whose message alone does not decide the owner.

Some messages belong to several owners: a bare ``CUBLAS_STATUS_EXECUTION_FAILED`` follows a kernel's
out-of-bounds access as often as a broken driver, and only the rest of the log (a sanitizer report, an
Xid, the earlier error) tells which.  Such a family keeps ``decide: concepts`` (a concept rule still
decides when the log carries the values it needs) and lists the owners it can have, best first::

    candidates:
      - {category: kernel-logic, failure_mode: oob-global-access, confidence: 0.35}
      - {category: environment, failure_mode: gpu-hardware-fault, confidence: 0.25}
    explain:
      caveats: What decides between them (a memcheck run, the first error in the log, ...).

Each candidate becomes a rule (:func:`diagnose.family_rules.candidate_rules`) of low priority and a
confidence below the threshold kdiag answers from, so on the message alone kdiag says ``unknown``,
lists the candidates in this order and gives the caveats as the check that decides; any rule that
reads more evidence outranks them.  A candidate never decides alone: its calibrated confidence is
capped at :data:`CANDIDATE_MAX`.

>>> errs = []
>>> parse_candidates({"decide": "concepts", "explain": {"caveats": "x"},
...     "candidates": [{"category": "environment", "failure_mode": "driver-too-old"}]}, errs.append)
(Candidate(category='environment', failure_mode='driver-too-old', confidence=0.3),)
>>> parse_candidates({"category": "environment", "candidates": []}, errs.append), errs
((), ['candidates are for families that do not decide alone (decide: concepts)'])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: a candidate's confidence, authored or calibrated, stays below the threshold kdiag answers from (0.5)
CANDIDATE_MAX = 0.45
#: below every rule that reads a specific message (10 and up), above the exit status alone (5)
CANDIDATE_PRIORITY = 9
DEFAULT_CONFIDENCE = 0.3
_CATEGORIES = ("kernel-logic", "environment", "runtime-assumption")
_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Candidate:
    category: str
    failure_mode: str
    confidence: float = DEFAULT_CONFIDENCE


def parse_candidates(item: dict[str, Any], err: Callable[[str], object]) -> tuple[Candidate, ...]:
    """A family's ``candidates`` (empty when it has none); each problem goes to ``err``."""
    raw = item.get("candidates")
    if raw is None:
        return ()
    if item.get("decide") != "concepts":
        err("candidates are for families that do not decide alone (decide: concepts)")
        return ()
    if not isinstance(raw, list) or not raw:
        err("candidates must be a non-empty list of {category, failure_mode, confidence}")
        return ()
    explain = item.get("explain")
    if not isinstance(explain, dict) or not isinstance(explain.get("caveats"), str):
        err("a family with candidates needs explain.caveats: the check that decides between them")
    out: list[Candidate] = []
    for c in raw:
        if not isinstance(c, dict) or set(c) - {"category", "failure_mode", "confidence"}:
            err(f"a candidate is a mapping of category, failure_mode and confidence, got {c!r}")
            continue
        cat, mode, conf = c.get("category"), c.get("failure_mode"), c.get("confidence", DEFAULT_CONFIDENCE)
        if cat not in _CATEGORIES:
            err(f"candidate category must be one of {', '.join(_CATEGORIES)}, got {cat!r}")
        elif any(o.category == cat for o in out):
            err(f"candidate category {cat!r} is listed twice")
        elif not isinstance(mode, str) or not _KEBAB.match(mode):
            err(f"candidate failure_mode must be kebab-case, got {mode!r}")
        elif not isinstance(conf, int | float) or isinstance(conf, bool) or not 0 < conf <= CANDIDATE_MAX:
            err(f"candidate confidence must be in (0, {CANDIDATE_MAX}] (a candidate never decides), got {conf!r}")
        else:
            out.append(Candidate(str(cat), mode, float(conf)))
    return tuple(out)
