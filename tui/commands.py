"""The command palette's kdiag commands: filters, sorts and the detail actions, by name."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import Hit, Hits, Provider

from tui.query import COLUMNS


class KdiagCommands(Provider):
    def _commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        from tui.screens.batch import BatchScreen
        from tui.screens.detail import DetailScreen

        app: Any = self.app
        out: list[tuple[str, Callable[[], Any], str]] = [("Help: keys and filter syntax", app.action_help, "")]
        screen = self.screen
        if isinstance(screen, BatchScreen):
            for cat in ("kernel-logic", "environment", "runtime-assumption", "unknown", "pass", "error"):
                out.append((f"Filter: category {cat}", partial(screen.set_filter, f"cat:{cat}"), ""))
            out.append(("Filter: clear", partial(screen.set_filter, ""), ""))
            for col in COLUMNS:
                out.append((f"Sort by {col}", partial(screen.sort_by, col, reverse=False), ""))
                out.append((f"Sort by {col}, reversed", partial(screen.sort_by, col, reverse=True), ""))
        elif isinstance(screen, DetailScreen):
            for name, action in (
                ("Re-run with a rung", screen.action_rerun),
                ("Label this case", screen.action_label),
                ("Export as a corpus case", screen.action_export),
                ("Copy the report as Markdown", screen.action_copy),
                ("Open the rule's help", screen.action_rule_help),
                ("Show the log", partial(screen.action_tab, "log")),
            ):
                out.append((name, action, ""))
            for tab in ("verdict", "sanitizer", "environment", "numerics", "probes", "rules", "rungs"):
                out.append((f"Tab: {tab}", partial(screen.action_tab, tab), ""))
        return out

    async def discover(self) -> Hits:
        for name, action, help_text in self._commands():
            yield Hit(1.0, name, action, help=help_text or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), action, help=help_text or None)
