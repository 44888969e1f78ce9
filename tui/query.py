"""Filtering and sorting a batch: pure functions over cases, so 10,000 rows filter in a few ms.

The filter box takes words; ``cat:``, ``mode:``, ``rule:`` and ``label:`` narrow to a field (a
prefix of the value is enough), anything else must appear in the id, the verdict or the title:

>>> q = parse_query("cat:kernel mode:oob illegal")
>>> q.category, q.mode, q.text
('kernel', 'oob', ('illegal',))
>>> parse_query("").empty
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tui.model import Case

COLUMNS = ("id", "category", "failure_mode", "confidence", "rule", "label")
FIELDS = {"cat": "category", "category": "category", "mode": "mode", "rule": "rule", "label": "label"}


@dataclass(frozen=True)
class Query:
    category: str | None = None
    mode: str | None = None
    rule: str | None = None
    label: str | None = None
    text: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.category or self.mode or self.rule or self.label or self.text)


def parse_query(s: str) -> Query:
    fields: dict[str, str] = {}
    words: list[str] = []
    for word in s.lower().split():
        key, sep, value = word.partition(":")
        if sep and key in FIELDS and value:
            fields[FIELDS[key]] = value
        else:
            words.append(word)
    return Query(text=tuple(words), **fields)


class Index:
    """The batch with a lower-cased search text per case, built once."""

    def __init__(self, cases: Sequence[Case]):
        self.cases = cases
        self._hay = [
            "\n".join((c.id, c.category, c.failure_mode, c.rule or "", c.title, c.origin or "")).lower() for c in cases
        ]

    def filter(self, q: Query) -> list[int]:
        """Indices of the cases the query keeps, in batch order."""
        if q.empty:
            return list(range(len(self.cases)))
        out = []
        for i, c in enumerate(self.cases):
            if q.category and not c.category.startswith(q.category):
                continue
            if q.mode and q.mode not in c.failure_mode:
                continue
            if q.rule and q.rule not in (c.rule or ""):
                continue
            if q.label and not c.label_text.startswith(q.label):
                continue
            if q.text and not all(w in self._hay[i] for w in q.text):
                continue
            out.append(i)
        return out

    def sort(self, rows: list[int], column: str, *, reverse: bool = False) -> list[int]:
        """``rows`` ordered by a column (None confidence last); stable, so sorts compose."""
        cases = self.cases
        if column == "confidence":
            missing = [i for i in rows if cases[i].confidence is None]
            have = sorted((i for i in rows if cases[i].confidence is not None),
                          key=lambda i: cases[i].confidence or 0.0, reverse=reverse)  # fmt: skip
            return have + missing

        def key(i: int) -> str:
            c = cases[i]
            return {
                "id": c.id,
                "category": c.category,
                "failure_mode": c.failure_mode,
                "rule": c.rule or "",
                "label": c.label_text,
            }[column]

        return sorted(rows, key=key, reverse=reverse)


def counts(cases: Sequence[Case], rows: Sequence[int] | None = None) -> Counter[str]:
    """Cases per category (of ``rows`` when given)."""
    it = (cases[i] for i in rows) if rows is not None else iter(cases)
    return Counter(c.category for c in it)


def unknown_groups(cases: Sequence[Case], rows: Sequence[int] | None = None) -> Counter[str]:
    """The ``unknown`` cases by their failure mode (unmatched, ambiguous) — kept visible, never folded away."""
    it = (cases[i] for i in rows) if rows is not None else iter(cases)
    return Counter(c.failure_mode for c in it if c.category == "unknown")
