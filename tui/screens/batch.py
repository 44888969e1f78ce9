"""The batch screen: every case in a table, counts per category, a filter box, sortable columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Input

from tui.model import Case
from tui.query import COLUMNS, Index, parse_query, unknown_groups
from tui.widgets.case_table import CaseTable
from tui.widgets.category_counts import CategoryCounts


class BatchScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("s", "sort_next", "Sort"),
        Binding("S", "sort_reverse", "Reverse"),
        Binding("u", "unknown", "Unknown"),
    ]

    def __init__(self, cases: Sequence[Case], *, source: str = "") -> None:
        super().__init__()
        self.index = Index(cases)
        self.source = source
        self.query_text = ""
        self.rows: list[int] = list(range(len(cases)))

    @property
    def cases(self) -> Sequence[Case]:
        return self.index.cases

    def compose(self) -> ComposeResult:
        yield Header()
        yield CategoryCounts(id="counts")
        yield Input(placeholder="/ filter: cat:kernel mode:oob rule:cuda- label:expected or any words", id="filter")
        yield CaseTable(self.cases, id="cases")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.source
        self.refilter()
        self.query_one(CaseTable).focus()

    # -- filtering and sorting --------------------------------------------------------------

    def refilter(self) -> None:
        table = self.query_one(CaseTable)
        rows = self.index.filter(parse_query(self.query_text))
        if table.sort_column:
            rows = self.index.sort(rows, table.sort_column, reverse=table.sort_reverse)
        self.rows = rows
        table.set_rows(rows)
        self.query_one(CategoryCounts).show(
            self.index.counts(rows),
            unknown_groups(self.cases, rows),
            shown=len(rows),
            total=len(self.cases),
            query=self.query_text,
        )

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self.refilter()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.query_one(CaseTable).focus()

    def sort_by(self, column: str, *, reverse: bool | None = None) -> None:
        table = self.query_one(CaseTable)
        if reverse is None:
            reverse = (not table.sort_reverse) if table.sort_column == column else False
        table.sort_column, table.sort_reverse = column, reverse
        self.refilter()

    def action_sort_next(self) -> None:
        table = self.query_one(CaseTable)
        nxt = COLUMNS[(COLUMNS.index(table.sort_column) + 1) % len(COLUMNS)] if table.sort_column else COLUMNS[0]
        self.sort_by(nxt, reverse=False)
        self.notify(f"sorted by {nxt}", timeout=1.5)

    def action_sort_reverse(self) -> None:
        table = self.query_one(CaseTable)
        self.sort_by(table.sort_column or "id", reverse=not table.sort_reverse)

    @on(CaseTable.HeaderClicked)
    def _header_clicked(self, event: CaseTable.HeaderClicked) -> None:
        self.sort_by(event.column)

    def set_filter(self, text: str) -> None:
        box = self.query_one("#filter", Input)
        with box.prevent(Input.Changed):  # refiltered here, once
            box.value = text
        self.query_text = text
        self.refilter()

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.set_filter("")
        self.query_one(CaseTable).focus()

    def action_unknown(self) -> None:
        """Only the unknowns, grouped by failure mode (unmatched, ambiguous)."""
        self.set_filter("" if self.query_text == "cat:unknown" else "cat:unknown")
        if self.query_text:
            self.sort_by("failure_mode", reverse=False)

    # -- opening ----------------------------------------------------------------------------

    @on(CaseTable.Opened)
    def _opened(self, event: CaseTable.Opened) -> None:
        self.app.open_case(event.index)  # type: ignore[attr-defined]

    def set_cases(self, cases: Sequence[Case]) -> None:
        self.index = Index(list(cases))
        self.query_one(CaseTable).cases = self.index.cases
        self.refilter()

    def replace_case(self, index: int, case: Case) -> None:
        """A case changed (labelled, re-run): redraw its row."""
        cases = list(self.cases)
        cases[index] = case
        self.index = Index(cases)
        table = self.query_one(CaseTable)
        table.cases = self.index.cases
        self.refilter()
