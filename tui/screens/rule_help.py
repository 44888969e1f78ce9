"""A rule's own help: what it detects, why it happens, how to fix it (as `kdiag rules show`)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.text import visible


def rule_text(rule: Any) -> Text:
    t = Text()
    t.append(f"{rule.id}\n", style="bold")
    t.append(f"{visible(rule.title)}\n\n", style="italic")
    t.append(f"category {rule.category}   failure mode {rule.failure_mode}   ")
    t.append(f"confidence {rule.confidence:.2f}   priority {rule.priority}\n")
    t.append(f"requires {', '.join(rule.requires) or '-'}\nfile {rule.path}\n")
    t.append("when ", style="bold")
    t.append(visible(rule.when) + "\n")
    e = rule.explain
    for title, body in (("What it detects", e.what), ("Why it happens", e.why), ("How to fix it", e.fix),
                        ("Caveats", e.caveats)):  # fmt: skip
        if body:
            t.append(f"\n{title}\n", style="bold underline")
            t.append(visible(body) + "\n")
    if rule.references:
        t.append("\nReferences\n", style="bold underline")
        for r in rule.references:
            t.append(f"  - {visible(r)}\n")
    return t


class RuleHelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,h,q", "close", "Close")]

    def __init__(self, rule: Any) -> None:
        super().__init__()
        self.rule = rule

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rule-help-dialog"):
            yield Static(rule_text(self.rule))

    def action_close(self) -> None:
        self.dismiss(None)
