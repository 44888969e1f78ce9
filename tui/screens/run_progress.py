"""A run in progress (``kdiag triage`` and re-runs): the rung running, the output's tail, the time.

The run itself happens in a thread worker (:func:`tui.runner.subprocess_runner` or the runner
the app was made with); progress comes back as messages, and a burst of them coalesces into the
latest (``can_replace``), so a chatty child cannot flood the screen.
"""

from __future__ import annotations

import threading
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Log, Static

from tui.runner import Progress, RunDone, Runner, RunRequest
from tui.text import visible


class RunProgressScreen(Screen[RunDone | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel run")]

    class Update(Message):
        def __init__(self, progress: Progress) -> None:
            super().__init__()
            self.progress = progress

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, RunProgressScreen.Update)

    class Finished(Message):
        def __init__(self, done: RunDone) -> None:
            super().__init__()
            self.done = done

    def __init__(self, request: RunRequest, runner: Runner, *, title: str = "kdiag run") -> None:
        super().__init__()
        self.request = request
        self.runner = runner
        self.title_text = title
        self.cancel_event = threading.Event()
        self.last: Progress | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(f"{self.title_text}: kdiag run {' '.join(self.request.argv())}"), id="run-command")
        yield Static(Text("starting…"), id="run-status")
        yield Log(id="run-tail", max_lines=400)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "running"
        self.run_target()

    @work(thread=True, exclusive=True, group="run")
    def run_target(self) -> None:
        def progress(p: Progress) -> None:
            self.post_message(self.Update(p))  # thread-safe; bursts coalesce (can_replace)

        done = self.runner(self.request, progress, self.cancel_event)
        self.post_message(self.Finished(done))

    def on_run_progress_screen_update(self, message: Update) -> None:
        p = message.progress
        self.last = p
        status = Text()
        status.append(f"{p.elapsed_s:6.1f} s", style="bold")
        status.append("   rung: ")
        status.append(visible(p.rung or "starting"), style="bold cyan")
        if p.steps:
            status.append(f"   steps: {visible(' → '.join(p.steps))}")
        if p.run_dir:
            status.append(f"   {visible(p.run_dir)}", style="dim")
        self.query_one("#run-status", Static).update(status)
        log = self.query_one("#run-tail", Log)
        log.clear()
        log.write_lines([visible(x) for x in p.tail] or ["(no output yet from kdiag run or the running child)"])

    def on_run_progress_screen_finished(self, message: Finished) -> None:
        done = message.done
        self.sub_title = "cancelled" if done.cancelled else f"finished in {done.elapsed_s:.1f} s"
        self.dismiss(done)

    def on_unmount(self) -> None:
        self.cancel_event.set()  # leaving the screen (or quitting) stops the run and its children

    def action_cancel(self) -> None:
        self.cancel_event.set()
        self.query_one("#run-status", Static).update(Text("cancelling…", style="bold yellow"))
