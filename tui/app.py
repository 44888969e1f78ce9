"""The kdiag TUI: a thin App that holds the cases, the bindings and the wiring of the actions.

:func:`make_app` builds it from data (cases, a runner, a labeller), so tests need no GPU, no
torch and no knowledge base.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel

from tui.commands import KdiagCommands
from tui.export import corpus_case, corpus_yaml, markdown
from tui.kb import KbAdapter, Labeller
from tui.model import Case
from tui.runner import RunDone, Runner, RunRequest, retarget, subprocess_runner
from tui.screens.batch import BatchScreen
from tui.screens.detail import DetailScreen
from tui.screens.help import HelpScreen
from tui.screens.label import LabelChoice, LabelScreen
from tui.screens.rule_help import RuleHelpScreen
from tui.screens.run_progress import RunProgressScreen
from tui.screens.rung_picker import RungPicker

DEFAULT_EXPORT = Path("kdiag-cases.yaml")


class KdiagApp(App[None]):
    CSS_PATH = "kdiag.tcss"
    TITLE = "kdiag"
    COMMANDS = App.COMMANDS | {KdiagCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("ctrl+p", "command_palette", "Commands", show=False),
    ]

    def __init__(
        self,
        cases: Sequence[Case],
        *,
        source: str = "",
        runner: Runner = subprocess_runner,
        labeller: Labeller | None = None,
        rules: Any = None,
        triage: RunRequest | None = None,
        export_path: Path = DEFAULT_EXPORT,
    ) -> None:
        super().__init__()
        self.cases = list(cases)
        self.source = source
        self.runner = runner
        self.labeller: Labeller = labeller or KbAdapter()
        self.triage = triage
        self.export_path = export_path
        self._rules = rules
        self._rules_lock = threading.Lock()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification here carries text from inputs, labels or the knowledge base: never markup."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # -- startup ----------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(BatchScreen(self.cases, source=self.source))
        if self.triage is not None:
            self.start_run(self.triage, index=None, title="kdiag triage")
        elif len(self.cases) == 1:
            self.open_case(0)

    @property
    def batch(self) -> BatchScreen:
        return next(s for s in self.screen_stack if isinstance(s, BatchScreen))

    def rules(self) -> Any:
        """The rule base, loaded once (in whichever worker asks first); None when it is broken."""
        with self._rules_lock:
            if self._rules is None:
                from diagnose.rules import RuleLoadError, default_rules

                try:
                    self._rules = default_rules()
                except RuleLoadError:
                    return None
            return self._rules

    # -- navigation -------------------------------------------------------------------------

    def open_case(self, index: int) -> None:
        self.push_screen(DetailScreen(self.cases[index], index))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def _detail(self) -> DetailScreen | None:
        return self.screen if isinstance(self.screen, DetailScreen) else None

    def update_case(self, index: int, case: Case) -> None:
        self.cases[index] = case
        self.batch.replace_case(index, case)
        for s in self.screen_stack:
            if isinstance(s, DetailScreen) and s.index == index:
                s.refresh_case(case)

    # -- runs -------------------------------------------------------------------------------

    def rerun(self, index: int) -> None:
        case = self.cases[index]
        if retarget(case, "memcheck") is None:
            self.notify(
                "This case did not come from kdiag run (no target to re-run): open a run directory, "
                "or run it with kdiag triage TARGET.",
                severity="warning",
                timeout=6,
            )
            return

        def chosen(rung: str | None) -> None:
            if rung:
                req = retarget(case, rung)
                if req is not None:
                    self.start_run(req, index=index, title=f"re-run with {rung}")

        self.push_screen(RungPicker(), chosen)

    def start_run(self, request: RunRequest, *, index: int | None, title: str) -> None:
        def finished(done: RunDone | None) -> None:
            if done is None or done.case is None:
                why = (done.error if done else None) or "no result"
                self.notify(f"{title}: {why}", severity="error" if not (done and done.cancelled) else "warning")
                if done and done.stderr_tail:
                    self.notify("\n".join(done.stderr_tail[-4:]), severity="error", timeout=10)
                return
            if index is None:
                self.cases.append(done.case)
                self._reindex()
                self.open_case(len(self.cases) - 1)
            else:
                self.update_case(index, done.case)
                self.notify(f"{title}: {done.case.category} / {done.case.failure_mode}")
                if self._detail() is None:
                    self.open_case(index)

        self.push_screen(RunProgressScreen(request, self.runner, title=title), finished)

    def _reindex(self) -> None:
        """The batch screen over ``self.cases`` again (a triage run added one)."""
        self.batch.set_cases(self.cases)

    # -- label, export, copy, help ----------------------------------------------------------

    def label(self, index: int) -> None:
        why = self.labeller.unavailable()
        if why is not None:
            self.notify(why, title="Cannot label", severity="error", timeout=12)
            return
        case = self.cases[index]

        def chosen(choice: LabelChoice | None) -> None:
            if choice is None:
                return
            res = self.labeller.label(
                case, category=choice.category, failure_mode=choice.failure_mode, note=choice.note
            )
            if not res.ok:
                self.notify(res.message, title="Not labelled", severity="error", timeout=10)
                return
            cat = choice.category or case.category
            mode = choice.failure_mode or case.failure_mode
            self.update_case(index, case.with_label(res.state or "labelled", cat, mode))
            self.notify(res.message, title="Labelled")

        self.push_screen(LabelScreen(case), chosen)

    def export(self, index: int) -> None:
        case = self.cases[index]
        try:
            if case.label_state:
                rec = corpus_case(case, category=case.label_category, failure_mode=case.label_mode)
            else:
                rec = corpus_case(case)
        except ValueError as exc:
            self.notify(str(exc), title="Not exported", severity="warning", timeout=8)
            return
        try:
            with self.export_path.open("a", encoding="utf-8") as fh:
                fh.write(corpus_yaml(rec))
        except OSError as exc:
            self.notify(f"could not write {self.export_path}: {exc}", severity="error")
            return
        self.notify(f"appended {case.id} to {self.export_path} (add its source before committing it)")

    def copy_markdown(self, index: int) -> None:
        self.copy_to_clipboard(markdown(self.cases[index]))
        self.notify("report copied as Markdown (through the terminal's clipboard, OSC 52)")

    def rule_help(self, rule_id: str | None) -> None:
        if not rule_id:
            self.notify("no rule decided this case", severity="warning")
            return
        rules = self.rules()
        rule = rules.get(rule_id) if rules is not None else None
        from diagnose.text_prior import RULE as TEXT_PRIOR

        if rule is None and rule_id == TEXT_PRIOR:
            self.notify("text-prior: no rule decided this case; the words of its log resemble the real reports of "
                        "that owner (kdiag rules show text-prior says how often that was right)")  # fmt: skip
            return
        if rule is None:
            self.notify(f"no rule {rule_id!r} in the rule base", severity="warning")
            return
        self.push_screen(RuleHelpScreen(rule))


def make_app(
    cases: Sequence[Case],
    *,
    source: str = "",
    runner: Runner = subprocess_runner,
    labeller: Labeller | None = None,
    rules: Any = None,
    triage: RunRequest | None = None,
    export_path: Path = DEFAULT_EXPORT,
) -> KdiagApp:
    """The app over ``cases``; ``runner`` runs targets (default: ``kdiag run`` in a child),
    ``labeller`` labels (default: the knowledge base), ``triage`` starts a run at once."""
    return KdiagApp(
        cases,
        source=source,
        runner=runner,
        labeller=labeller,
        rules=rules,
        triage=triage,
        export_path=export_path,
    )
