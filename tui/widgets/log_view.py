"""The input log, numbered, with the lines the verdict cites highlighted; ``n``/``p`` jump between them.

Drawn line by line (a log can be long); every line goes through :func:`tui.text.visible`, so
``[bold]`` or an ANSI escape in the log is shown as the characters it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.text import visible


class LogView(ScrollView, can_focus=True):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "log-view--number",
        "log-view--cited",
        "log-view--cursor",
        "log-view--source",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_cited(1)", "Next cited"),
        Binding("p", "next_cited(-1)", "Prev cited"),
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)  # 0-based line

    def __init__(self, text: str, cited: dict[int, str] | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: Sequence[str] = [visible(line) for line in text.splitlines()] or [""]
        self.cited = dict(cited or {})  # 1-based line → source (log, sanitizer, compiler ...)
        self._num_w = len(str(len(self.lines))) + 1
        width = max((len(x) for x in self.lines), default=0) + self._num_w + 14
        self.virtual_size = Size(width, len(self.lines))

    def on_mount(self) -> None:
        if self.cited:
            self.cursor = min(self.cited) - 1

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        n = scroll_y + y
        width = self.size.width
        if n >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        base = self.rich_style
        source = self.cited.get(n + 1)
        if source is not None:
            base = base + self.get_component_rich_style("log-view--cited")
        if n == self.cursor:
            base = base + self.get_component_rich_style("log-view--cursor")
        mark = f"{source[:9]:>9} ▶ " if source is not None else " " * 12
        segs = [
            Segment(f"{n + 1:>{self._num_w}} ", base + self.get_component_rich_style("log-view--number")),
            Segment(mark, base + self.get_component_rich_style("log-view--source")),
            Segment(self.lines[n], base),
        ]
        line_w = self._num_w + 1 + 12 + len(self.lines[n])
        total = max(self.virtual_size.width, width)
        segs.append(Segment(" " * max(total - line_w, 0), base))
        return Strip(segs).crop(scroll_x, scroll_x + width)

    def watch_cursor(self, old: int, new: int) -> None:
        top = int(self.scroll_offset.y)
        h = max(self.size.height, 1)
        if not (top <= new < top + h):
            self.scroll_to(y=max(new - h // 3, 0), animate=False)
        self.refresh()

    def action_move(self, delta: int) -> None:
        self.cursor = max(0, min(len(self.lines) - 1, self.cursor + delta))

    def action_next_cited(self, direction: int) -> None:
        """Jump to the next (1) or previous (-1) cited line, wrapping around."""
        if not self.cited:
            self.notify("No cited lines in this log", severity="warning")
            return
        lines = sorted(n - 1 for n in self.cited)
        if direction > 0:
            after = [n for n in lines if n > self.cursor]
            self.cursor = after[0] if after else lines[0]
        else:
            before = [n for n in lines if n < self.cursor]
            self.cursor = before[-1] if before else lines[-1]

    def jump_to(self, line: int) -> None:
        """Put the cursor on a 1-based line."""
        self.cursor = max(0, min(len(self.lines) - 1, line - 1))
