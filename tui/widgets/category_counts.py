"""The header over the batch: how many cases per category, and the unknown groups, of what is shown."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from rich.text import Text
from textual.widget import Widget

ORDER = ("kernel-logic", "environment", "runtime-assumption", "unknown", "pass", "none", "error")


class CategoryCounts(Widget):
    """One line; redrawn without a new layout (a Static's update re-lays the screen out, every keystroke)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"category-counts--{c}" for c in ORDER} | {"category-counts--dim"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text()

    def render(self) -> Text:
        return self.text

    def show(self, counts: Counter[str], unknown: Counter[str], *, shown: int, total: int, query: str = "") -> None:
        t = Text()
        t.append(f"{shown:,} of {total:,}  ", style=self.get_component_rich_style("category-counts--dim"))
        names = [c for c in ORDER if counts.get(c)] + sorted(c for c in counts if c not in ORDER)
        for cat in names:
            cls = f"category-counts--{cat}"
            style = self.get_component_rich_style(cls) if cls in self.COMPONENT_CLASSES else ""
            t.append(f" {cat} ", style=style)
            t.append(f"{counts[cat]:,}  ")
            if cat == "unknown" and unknown:
                groups = " · ".join(f"{m} {n:,}" for m, n in unknown.most_common())
                t.append(f"({groups})  ", style=self.get_component_rich_style("category-counts--dim"))
        if query:
            t.append(f"  filter: {query}", style=self.get_component_rich_style("category-counts--dim"))
        self.text = t
        self.refresh()
