"""The detail screen: one case's verdict, its log with the cited lines, and a tab per evidence source."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

from tui import panels
from tui.model import Case
from tui.rule_outcomes import Outcomes, outcomes
from tui.text import visible
from tui.widgets.log_view import LogView

TABS = ("verdict", "log", "sanitizer", "environment", "numerics", "probes", "rules", "rungs")


class DetailScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,backspace", "back", "Back"),
        Binding("l", "tab('log')", "Log"),
        Binding("v", "tab('verdict')", "Verdict", show=False),
        Binding("n", "cited(1)", "Next cited", show=False),
        Binding("r", "rerun", "Re-run"),
        Binding("m", "label", "Label"),
        Binding("e", "export", "Export case"),
        Binding("y", "copy", "Copy MD"),
        Binding("h", "rule_help", "Rule help"),
        *(Binding(str(i), f"tab('{tab}')", tab.title(), show=False) for i, tab in enumerate(TABS, 1)),
    ]

    def __init__(self, case: Case, index: int) -> None:
        super().__init__()
        self.case = case
        self.index = index

    def compose(self) -> ComposeResult:
        c = self.case
        yield Header()
        with TabbedContent(initial="verdict", id="tabs"):
            with TabPane("Verdict", id="verdict"), VerticalScroll():
                yield Static(panels.verdict(c), id="verdict-text")
            with TabPane("Log", id="log"):
                if c.log:
                    yield LogView(c.log, {x.line: x.source for x in c.cited}, id="logview")
                else:
                    yield Static(self._no_log(), id="no-log")
            for tab, title, build in (
                ("sanitizer", "Sanitizer", panels.sanitizer),
                ("environment", "Environment", panels.environment),
                ("numerics", "Numerics", panels.numerics),
                ("probes", "Probes", panels.probes),
            ):
                with TabPane(title, id=tab), VerticalScroll():
                    yield Static(build(c), id=f"{tab}-text")
            with TabPane("Rules", id="rules"), VerticalScroll():
                yield Static(Text("checking every rule against this evidence…"), id="rules-text")
            with TabPane("Rungs", id="rungs"), VerticalScroll():
                yield Static(panels.rungs(c), id="rungs-text")
        yield Footer()

    def _no_log(self) -> Text:
        t = Text("The log is not in this source", style="bold")
        t.append(" (kdiag classify's results keep the cited lines only). The cited lines:\n\n", style="")
        for x in self.case.cited:
            t.append(f"{x.line:>6} [{visible(x.source)}] ", style="bold")
            t.append(visible(x.text) + "\n")
        return t

    def on_mount(self) -> None:
        self.sub_title = f"{self.case.id} — {self.case.category} / {self.case.failure_mode}"
        self.load_rules()

    # -- the rule base, off the UI thread ---------------------------------------------------

    @work(thread=True, exclusive=True, group="rules")
    def load_rules(self) -> None:
        rules = self.app.rules()  # type: ignore[attr-defined]
        result = (
            outcomes(self.case.evidence, rules) if rules is not None else Outcomes((), "the rule base could not load")
        )
        explain: dict[str, Any] = {}
        if rules is not None and self.case.rule and self.case.best is not None:
            rule = rules.get(self.case.rule)
            if rule is not None:
                explain = {k: getattr(rule.explain, k) for k in ("what", "why", "fix", "caveats")}
                explain["references"] = list(rule.references)
        self.app.call_from_thread(self._show_rules, result, explain)

    def _show_rules(self, result: Outcomes, explain: dict[str, Any]) -> None:
        self.query_one("#rules-text", Static).update(rules_text(result))
        if explain:
            self.query_one("#verdict-text", Static).update(panels.verdict(self.case, explain=explain))

    # -- actions ----------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        if tab == "log" and self.case.log:
            self.query_one(LogView).focus()

    def action_cited(self, direction: int) -> None:
        self.action_tab("log")
        if self.case.log:
            self.query_one(LogView).action_next_cited(direction)

    def action_rerun(self) -> None:
        self.app.rerun(self.index)  # type: ignore[attr-defined]

    def action_label(self) -> None:
        self.app.label(self.index)  # type: ignore[attr-defined]

    def action_export(self) -> None:
        self.app.export(self.index)  # type: ignore[attr-defined]

    def action_copy(self) -> None:
        self.app.copy_markdown(self.index)  # type: ignore[attr-defined]

    def action_rule_help(self) -> None:
        self.app.rule_help(self.case.rule)  # type: ignore[attr-defined]

    def refresh_case(self, case: Case) -> None:
        self.case = case
        self.sub_title = f"{case.id} — {case.category} / {case.failure_mode}" + (
            f"  [{case.label_state}]" if case.label_state else ""
        )


def rules_text(result: Outcomes) -> Text:
    t = Text()
    if result.note:
        t.append(result.note + "\n", style="bold")
        return t
    sections = (
        ("matched", "Matched", "bold green"),
        ("error", "Errors", "bold red"),
        ("skipped", "Skipped (could not check: evidence missing)", "bold yellow"),
        ("not-matched", "Not matched", "bold"),
    )
    for key, title, style in sections:
        rows = result.of(key)
        if not rows and key == "error":
            continue
        t.append(f"{title} ({len(rows)})\n", style=style)
        for r in rows:
            t.append(f"  {visible(r.rule):<48} {visible(r.category)} / {visible(r.failure_mode)}")
            if r.missing:
                t.append(f"  needs {', '.join(r.missing)}", style="yellow")
            if r.error:
                t.append(f"  {visible(r.error)}", style="red")
            t.append("\n")
        t.append("\n")
    return t
