"""The ULP histogram of a comparison, drawn with block characters.

>>> print("\\n".join(bars({"0": 90, "1": 9, "2-4": 1, ">256": 0}, width=10)))
      0 ██████████ 90
      1 █         9
    2-4 ▏         1
   >256           0
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import Static

EIGHTHS = " ▏▎▍▌▋▊▉█"


def bars(hist: Mapping[str, int], *, width: int = 40) -> list[str]:
    """One line per bucket: its name, a bar scaled to the largest bucket, the count."""
    top = max(hist.values(), default=0)
    lines = []
    for name, count in hist.items():
        eighths = round(8 * width * count / top) if top else 0
        if count and not eighths:
            eighths = 1  # a bucket with anything in it is never drawn empty
        full, part = divmod(eighths, 8)
        bar = "█" * full + (EIGHTHS[part] if part else "")
        lines.append(f"{name:>7} {bar:<{width}} {count}")
    return lines


class UlpHistogram(Static):
    """The histogram as a widget (``hist`` maps bucket → count, in bucket order)."""

    def __init__(self, hist: Mapping[str, int], *, width: int = 40, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hist = dict(hist)
        self.bar_width = width

    def render(self) -> Text:
        if not self.hist:
            return Text("no ULP histogram (the comparison had no float output)")
        return Text("\n".join(bars(self.hist, width=self.bar_width)))
