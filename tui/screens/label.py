"""Label a case: confirm kdiag's verdict, or correct its category and failure mode, with a note."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from tui.kb import CATEGORIES
from tui.model import Case
from tui.text import visible


@dataclass(frozen=True)
class LabelChoice:
    category: str | None  # None: confirm kdiag's verdict as it is
    failure_mode: str | None
    note: str | None


class LabelScreen(ModalScreen[LabelChoice | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(self, case: Case) -> None:
        super().__init__()
        self.case = case

    def compose(self) -> ComposeResult:
        c = self.case
        with Vertical(id="label-dialog"):
            yield Static(Text(f"Label {visible(c.id)}", style="bold"))
            yield Static(Text(f"kdiag says: {c.category} / {visible(c.failure_mode)}"))
            yield Button(
                "Confirm kdiag's verdict", id="confirm", variant="success", disabled=c.category not in CATEGORIES
            )
            yield Label("or correct it:")
            cat = c.category if c.category in CATEGORIES else Select.NULL
            yield Select([(x, x) for x in CATEGORIES], value=cat, prompt="category", id="category")
            mode = c.failure_mode if c.category in CATEGORIES else ""
            yield Input(value=mode, placeholder="failure mode (kebab-case)", id="mode")
            yield Input(placeholder="note: what you found (optional)", id="note")
            with Horizontal(id="label-buttons"):
                yield Button("Save", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        btn = self.query_one("#confirm", Button)
        (btn if not btn.disabled else self.query_one("#category", Select)).focus()

    def _note(self) -> str | None:
        return self.query_one("#note", Input).value.strip() or None

    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(LabelChoice(None, None, self._note()))

    @on(Button.Pressed, "#save")
    @on(Input.Submitted)
    def action_save(self) -> None:
        cat = self.query_one("#category", Select).value
        mode = self.query_one("#mode", Input).value.strip()
        if not isinstance(cat, str) or not mode:
            self.notify("choose a category and type a failure mode, or confirm kdiag's verdict", severity="warning")
            return
        if (cat, mode) == (self.case.category, self.case.failure_mode):
            self.dismiss(LabelChoice(None, None, self._note()))
            return
        self.dismiss(LabelChoice(cat, mode, self._note()))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
