"""The batch table: a line-API widget that draws only the rows on screen.

Textual's DataTable builds every row up front (about 3 s for 10,000 rows here), and a ScrollView
re-lays the screen out whenever its virtual size changes (every filter), so the batch table
scrolls itself: filtering or sorting swaps a list of indices and redraws the visible lines.
Row 0 is the header (with the position in the list); a click on it sorts by that column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

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


class CaseTable(Widget, can_focus=True):
    """Rows of cases; ``rows`` are indices into ``cases`` (the filtered, sorted view)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
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
    BINDINGS: ClassVar[list[BindingType]] = [
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
        self._styles: dict[str, Style] = {}
        self.top = 0  # the first row drawn

    # -- data -------------------------------------------------------------------------------

    def set_rows(self, rows: list[int]) -> None:
        self.rows = rows
        self.top = min(self.top, max(len(rows) - self.view_height, 0))
        self.cursor = min(self.cursor, max(len(rows) - 1, 0))
        self.refresh()

    @property
    def view_height(self) -> int:
        """Rows that fit under the header."""
        return max(self.size.height - 1, 1)

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

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = {}

    def _style(self, name: str) -> Style:
        """A component class's style, looked up once (render_line runs for every visible row)."""
        if name not in self._styles:
            self._styles[name] = self.rich_style if name == "" else self.get_component_rich_style(name)
        return self._styles[name]

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
            parts = []
            for name, w in widths.items():
                head = HEADINGS[name]
                if name == self.sort_column:
                    head += " ▼" if self.sort_reverse else " ▲"
                if name == "label" and self.rows:
                    head = f"{self.cursor + 1}/{len(self.rows)}"
                parts.append(_fit(head, w, right=name in ("confidence", "label")))
            return Strip([Segment(" ".join(parts).ljust(width)[:width], self._style("case-table--header"))], width)
        n = self.top + y - 1
        base = self._style("")
        if n >= len(self.rows):
            return Strip([Segment(" " * width, base)], width)
        case = self.cases[self.rows[n]]
        if n == self.cursor:
            base = base + self._style("case-table--cursor")
        values = cells(case)
        segs: list[Segment] = []
        used = 0
        for name, w in widths.items():
            style = base
            if name == "category":
                cls = f"case-table--{case.category}"
                if cls in self.COMPONENT_CLASSES:
                    style = base + Style(color=self._style(cls).color, bold=True)
            elif name == "label" and values["label"]:
                style = base + Style(color=self._style("case-table--label").color)
            text = _fit(values[name], w, right=name == "confidence") + " "
            if used + len(text) > width:
                text = text[: max(width - used, 0)]
            segs.append(Segment(text, style))
            used += len(text)
        if used < width:
            segs.append(Segment(" " * (width - used), base))
        return Strip(segs, width)

    # -- moving -----------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        view = self.view_height
        if new < self.top:
            self.top = new
        elif new >= self.top + view:
            self.top = new - view + 1
        self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.top = max(min(self.top + 3, len(self.rows) - self.view_height), 0)
        self.cursor = max(self.cursor, self.top)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.top = max(self.top - 3, 0)
        self.cursor = min(self.cursor, self.top + self.view_height - 1)

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
        n = self.top + event.y - 1
        if 0 <= n < len(self.rows):
            self.cursor = n
            if event.chain >= 2:
                self.action_open()
