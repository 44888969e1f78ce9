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
        self._cats = [c.category for c in cases]
        self._hay = [
            "\n".join((c.id, c.category, c.failure_mode, c.rule or "", c.title, c.origin or "")).lower() for c in cases
        ]

    def filter(self, q: Query) -> list[int]:
        """Indices of the cases the query keeps, in batch order."""
        if q.empty:
            return list(range(len(self.cases)))
        rows: range | list[int] = range(len(self.cases))
        cases, hay = self.cases, self._hay
        # cheapest test first; each pass narrows the next
        if q.category:
            cats, want = self._cats, q.category
            rows = [i for i in rows if cats[i].startswith(want)]
        if q.mode:
            rows = [i for i in rows if q.mode in cases[i].failure_mode]
        if q.rule:
            rows = [i for i in rows if q.rule in (cases[i].rule or "")]
        if q.label:
            rows = [i for i in rows if cases[i].label_text.startswith(q.label)]
        for word in q.text:
            rows = [i for i in rows if word in hay[i]]
        return list(rows)

    def sort(self, rows: list[int], column: str, *, reverse: bool = False) -> list[int]:
        """``rows`` ordered by a column (None confidence last); stable, so sorts compose."""
        cases = self.cases
        if column == "confidence":
            missing = [i for i in rows if cases[i].confidence is None]
            have = sorted((i for i in rows if cases[i].confidence is not None),
                          key=lambda i: cases[i].confidence or 0.0, reverse=reverse)  # fmt: skip
            return have + missing

        field = {
            "id": lambda c: c.id,
            "category": lambda c: c.category,
            "failure_mode": lambda c: c.failure_mode,
            "rule": lambda c: c.rule or "",
            "label": lambda c: c.label_text,
        }[column]
        keys = [field(c) for c in cases] if len(rows) > len(cases) // 4 else None

        def key(i: int) -> str:
            return keys[i] if keys is not None else field(cases[i])

        return sorted(rows, key=key, reverse=reverse)

    def counts(self, rows: Sequence[int]) -> Counter[str]:
        """Cases per category among ``rows``."""
        return Counter(map(self._cats.__getitem__, rows))


def counts(cases: Sequence[Case], rows: Sequence[int] | None = None) -> Counter[str]:
    """Cases per category (of ``rows`` when given)."""
    it = (cases[i] for i in rows) if rows is not None else iter(cases)
    return Counter(c.category for c in it)


def unknown_groups(cases: Sequence[Case], rows: Sequence[int] | None = None) -> Counter[str]:
    """The ``unknown`` cases by their failure mode (unmatched, ambiguous) — kept visible, never folded away."""
    it = (cases[i] for i in rows) if rows is not None else iter(cases)
    return Counter(c.failure_mode for c in it if c.category == "unknown")
