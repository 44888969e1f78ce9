"""`?`: the keys and the filter syntax."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP = """\
kdiag tui — read a diagnosis, check its evidence, re-run, label.

Batch
  ↑ ↓ j k PgUp PgDn g G   move            enter   open the case
  /                        filter          escape  clear the filter
  s / S                    sort by the next column / reverse (or click a heading)
  u                        only the unknowns, by group

Filter words
  cat:kernel  mode:oob  rule:cuda-  label:expected  and any words (id, verdict, title, origin)

Detail
  v  verdict     l  log (n / p: next / previous cited line)     1-8  the tabs (or click)
  r  re-run with a rung (launch-blocking, memcheck, racecheck, probes full)
  m  label into the knowledge base (confirm, or correct category and mode)
  e  export as a corpus case      y  copy the report as Markdown      h  the rule's help
  escape  back to the batch

Everywhere
  ctrl+p  command palette       ?  this help       q  quit
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(Text(HELP))

    def action_close(self) -> None:
        self.dismiss(None)
