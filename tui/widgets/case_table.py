"""The batch table: a line-API view that draws only the rows on screen.

Textual's DataTable builds every row up front (about 3 s for 10,000 rows here), so a batch table
that must stay responsive at that size draws its visible lines itself: filtering or sorting swaps
a list of indices and refreshes.  Row 0 is the header; a click on it sorts by that column.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model import Case
from tui.text import visible

HEADINGS = {
    "id": "ID",
    "category": "CATEGORY",
    "failure_mode": "FAILURE MODE",
    "confidence": "CONF",
    "rule": "RULE",
    "label": "LABEL",
}


def _fit(s: str, width: int, *, right: bool = False) -> str:
    s = visible(s).replace("\n", " ")
    if len(s) > width:
        s = s[: max(width - 1, 0)] + "…"
    return s.rjust(width) if right else s.ljust(width)


def cells(case: Case) -> dict[str, str]:
    return {
        "id": case.id,
        "category": case.category,
        "failure_mode": case.failure_mode,
        "confidence": f"{case.confidence:.2f}" if case.confidence is not None else "-",
        "rule": case.rule or "",
        "label": case.label_text,
    }


class CaseTable(ScrollView, can_focus=True):
    """Rows of cases; ``rows`` are indices into ``cases`` (the filtered, sorted view)."""

    COMPONENT_CLASSES = {
        "case-table--header",
        "case-table--cursor",
        "case-table--kernel-logic",
        "case-table--environment",
        "case-table--runtime-assumption",
        "case-table--unknown",
        "case-table--pass",
        "case-table--error",
        "case-table--label",
    }
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "Top", show=False),
        Binding("end,G", "jump(-1)", "Bottom", show=False),
        Binding("enter", "open", "Open", show=True),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)

    class Opened(Message):
        """A row was chosen (enter or a double click): ``index`` is into the batch's cases."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class HeaderClicked(Message):
        def __init__(self, column: str) -> None:
            super().__init__()
            self.column = column

    def __init__(self, cases: Sequence[Case] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cases: Sequence[Case] = cases
        self.rows: list[int] = list(range(len(cases)))
        self.sort_column: str | None = None
        self.sort_reverse = False
        self._widths: dict[str, int] = {}

    # -- data -------------------------------------------------------------------------------

    def set_rows(self, rows: list[int]) -> None:
        self.rows = rows
        self.virtual_size = Size(self.size.width, len(rows) + 1)
        self.cursor = min(self.cursor, max(len(rows) - 1, 0))
        self.refresh()

    def set_cases(self, cases: Sequence[Case], rows: list[int] | None = None) -> None:
        self.cases = cases
        self.set_rows(list(range(len(cases))) if rows is None else rows)

    @property
    def current(self) -> int | None:
        """The batch index under the cursor."""
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    # -- layout -----------------------------------------------------------------------------

    def _layout(self, width: int) -> dict[str, int]:
        fixed = {"category": 18, "failure_mode": 30, "confidence": 5, "label": 11}
        rest = max(width - sum(fixed.values()) - 6, 20)
        id_w = max(min(rest // 2, 40), 10)
        return {
            "id": id_w,
            "category": fixed["category"],
            "failure_mode": fixed["failure_mode"],
            "confidence": fixed["confidence"],
            "rule": max(rest - id_w, 8),
            "label": fixed["label"],
        }

    def on_resize(self, event: events.Resize) -> None:
        self._widths = self._layout(event.size.width)
        self.virtual_size = Size(event.size.width, len(self.rows) + 1)

    def column_at(self, x: int) -> str | None:
        widths = self._widths or self._layout(self.size.width)
        pos = 0
        for name, w in widths.items():
            if pos <= x < pos + w + 1:
                return name
            pos += w + 1
        return None

    # -- drawing ----------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        widths = self._widths or self._layout(self.size.width)
        width = self.size.width
        if y == 0:
            style = self.get_component_rich_style("case-table--header")
            parts = []
            for name, w in widths.items():
                head = HEADINGS[name]
                if name == self.sort_column:
                    head += " ▼" if self.sort_reverse else " ▲"
                parts.append(_fit(head, w, right=name == "confidence"))
            return Strip([Segment(" ".join(parts).ljust(width)[:width], style)], width)
        n = int(self.scroll_offset.y) + y - 1
        if n >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        case = self.cases[self.rows[n]]
        base = self.rich_style
        if n == self.cursor:
            base = base + self.get_component_rich_style("case-table--cursor")
        values = cells(case)
        segs: list[Segment] = []
        for name, w in widths.items():
            style = base
            if name == "category":
                cls = f"case-table--{case.category}"
                if cls in self.COMPONENT_CLASSES:
                    style = base + Style(color=self.get_component_rich_style(cls).color, bold=True)
            elif name == "label" and values["label"]:
                style = base + Style(color=self.get_component_rich_style("case-table--label").color)
            segs.append(Segment(_fit(values[name], w, right=name == "confidence"), style))
            segs.append(Segment(" ", base))
        used = sum(len(s.text) for s in segs)
        if used < width:
            segs.append(Segment(" " * (width - used), base))
        return Strip(segs, width).crop(0, width)

    # -- moving -----------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        view = max(self.size.height - 1, 1)
        top = int(self.scroll_offset.y)
        if new < top:
            self.scroll_to(y=new, animate=False)
        elif new >= top + view:
            self.scroll_to(y=new - view + 1, animate=False)
        self.refresh()

    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(self.size.height - 2, 1))

    def action_jump(self, where: int) -> None:
        if self.rows:
            self.cursor = where if where >= 0 else len(self.rows) - 1

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(self.Opened(self.current))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            col = self.column_at(event.x)
            if col:
                self.post_message(self.HeaderClicked(col))
            return
        n = int(self.scroll_offset.y) + event.y - 1
        if 0 <= n < len(self.rows):
            self.cursor = n
            if event.chain >= 2:
                self.action_open()
