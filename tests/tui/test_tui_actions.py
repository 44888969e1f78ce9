"""The actions: a re-run streaming its progress, labelling through the adapter, export, Markdown."""

from __future__ import annotations

import asyncio
import itertools
import sys
import threading

import yaml

from tui.app import make_app
from tui.kb import KbAdapter, LabelResult
from tui.runner import Progress, RunDone, RunRequest, subprocess_runner
from tui.screens.detail import DetailScreen
from tui.screens.label import LabelScreen
from tui.screens.run_progress import RunProgressScreen
from tui.widgets.case_table import CaseTable

SIZE = (140, 40)


async def _until(pilot, check, *, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out waiting for the app"
        await pilot.pause(0.05)


class ScriptedRunner:
    """Stands in for `kdiag run`: reports two rungs, waits until the test has looked, returns ``result``."""

    def __init__(self, result):
        self.result = result
        self.requests: list[RunRequest] = []
        self.looked = threading.Event()

    def __call__(self, request, on_progress, cancel):
        self.requests.append(request)
        on_progress(Progress(0.5, "1-plain", ("kernel child started",), ".kdiag/runs/x"))
        on_progress(Progress(1.0, "2-launch-blocking", ("[bold]stderr: CUDA_LAUNCH_BLOCKING=1[/]",), ".kdiag/runs/x"))
        self.looked.wait(10)
        return RunDone(1, self.result, (), None, 1.2)


async def test_rerun_with_a_rung_streams_progress_and_replaces_the_case(run_case, numerics_case, rules):
    runner = ScriptedRunner(numerics_case)
    app = make_app([run_case], rules=rules, runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("down", "enter")  # the second rung: memcheck
        await _until(pilot, lambda: isinstance(app.screen, RunProgressScreen))
        status = app.screen.query_one("#run-status")
        await _until(pilot, lambda: "2-launch-blocking" in str(status.render()))
        tail = app.screen.query_one("#run-tail")
        assert any("[bold]stderr" in line for line in tail.lines)  # shown as text
        runner.looked.set()
        await _until(pilot, lambda: isinstance(app.screen, DetailScreen))
        (req,) = runner.requests
        assert req.target == ("corpus/kernels/missing_mask_tail.py",)
        assert "--ladder" in req.options and "full" in req.options and "--cpu" in req.options
        assert app.cases[0].failure_mode == numerics_case.failure_mode
        table = app.batch.query_one(CaseTable)
        assert table.cases[0].failure_mode == numerics_case.failure_mode


async def test_rerun_of_a_case_from_a_log_says_there_is_no_target(real_dev, rules):
    runner = ScriptedRunner(None)
    app = make_app(real_dev[:1], rules=rules, runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen) and not runner.requests
        assert any("did not come from kdiag run" in n.message for n in app._notifications)


class RecordingLabeller:
    """Stands in for the knowledge base: keeps what it was asked to store."""

    def __init__(self):
        self.calls: list[tuple[str, str | None, str | None, str | None]] = []

    def unavailable(self):
        return None

    def label(self, case, *, category, failure_mode, note):
        self.calls.append((case.id, category, failure_mode, note))
        state = (
            "corrected" if category and (category, failure_mode) != (case.category, case.failure_mode) else "confirmed"
        )
        return LabelResult(True, f"{state}: {note}", state)


async def test_label_confirm_and_correct_through_the_adapter(real_dev, rules):
    labeller = RecordingLabeller()
    decided = next(c for c in real_dev if c.category == "environment")
    app = make_app([decided, real_dev[-1]], rules=rules, labeller=labeller)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.press("m")
        await _until(pilot, lambda: isinstance(app.screen, LabelScreen))
        await pilot.press("enter")  # the focused button: confirm kdiag's verdict
        await _until(pilot, lambda: bool(labeller.calls))
        assert labeller.calls[-1] == (decided.id, None, None, None)
        assert app.cases[0].label_state == "confirmed"
        await pilot.press("m")
        await _until(pilot, lambda: isinstance(app.screen, LabelScreen))
        dialog = app.screen
        dialog.query_one("#category").value = "runtime-assumption"
        dialog.query_one("#mode").value = "int32-index-overflow"
        dialog.query_one("#note").value = "the [bold] size was 2**31"
        dialog.query_one("#save").press()
        await _until(pilot, lambda: len(labeller.calls) == 2)
        await _until(pilot, lambda: any("[bold]" in n.message for n in app._notifications))  # the note, as typed
        assert not any(n.markup for n in app._notifications)
        assert labeller.calls[-1] == (
            decided.id,
            "runtime-assumption",
            "int32-index-overflow",
            "the [bold] size was 2**31",
        )
        assert app.cases[0].label_state == "corrected"
        assert app.cases[0].label_mode == "int32-index-overflow"
        await pilot.press("escape")
        table = app.screen.query_one(CaseTable)
        assert "corrected" in table.render_line(1).text


async def test_an_unknown_case_is_labelled_by_correcting_it(real_dev, rules):
    labeller = RecordingLabeller()
    unknown = next(c for c in real_dev if c.category == "unknown")
    app = make_app([unknown], rules=rules, labeller=labeller)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("m")
        await _until(pilot, lambda: isinstance(app.screen, LabelScreen))
        assert app.screen.query_one("#confirm").disabled  # there is no verdict to confirm
        await pilot.press("enter")  # the category list, focused, opens
        await pilot.press("down", "down", "enter")  # past the prompt and kernel-logic: environment
        await pilot.press("tab", *"version-skew", "enter")
        await _until(pilot, lambda: bool(labeller.calls))
        assert labeller.calls[-1] == (unknown.id, "environment", "version-skew", None)
        assert app.cases[0].label_state == "corrected"


async def test_label_without_a_knowledge_base_says_so_and_what_it_needs(real_dev, rules):
    adapter = KbAdapter(store_module="diagnose.no_such_kb.store", record_module="diagnose.no_such_kb.record")
    app = make_app(real_dev[:1], rules=rules, labeller=adapter)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)  # no dialog: there is nowhere to store a label
        (note,) = [n for n in app._notifications if n.title == "Cannot label"]
        assert "not available" in note.message
        for name in ("Store(path)", ".label(ref", ".record(observation)", "observation(report"):
            assert name in note.message


async def test_label_into_the_knowledge_base(tmp_path, real_dev, rules):
    from diagnose.kb import store as store_mod

    adapter = KbAdapter(str(tmp_path / "kb.sqlite"))
    case = next(c for c in real_dev if c.category == "environment")
    res = adapter.label(case, category=None, failure_mode=None, note="checked")
    assert res.ok and res.state == "confirmed", res.message
    with store_mod.Store(tmp_path / "kb.sqlite") as store:
        (entry,) = list(store.entries())
        assert entry["label"]["state"] == "confirmed"
        assert (entry["category"], entry["failure_mode"]) == (case.category, case.failure_mode)
    (kb_case,) = adapter.cases()
    assert kb_case.label_state == "confirmed" and kb_case.log == case.log


async def test_export_writes_a_corpus_case_and_copy_gives_markdown(tmp_path, real_dev, rules):
    case = next(c for c in real_dev if c.category == "environment")
    out = tmp_path / "cases.yaml"
    app = make_app([case], rules=rules, export_path=out)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e", "y")
        await pilot.pause()
        (rec,) = yaml.safe_load(out.read_text())
        assert rec["log"] == case.log and rec["source"] == case.origin
        assert (rec["category"], rec["failure_mode"]) == (case.category, case.failure_mode)
        assert rec["label_source"].startswith("kdiag's own verdict")
        assert f"**{case.category} / {case.failure_mode}**" in app.clipboard
        assert case.best["fix"] in app.clipboard


def test_the_subprocess_runner_streams_and_reads_the_report(tmp_path, monkeypatch):
    monkeypatch.setenv("KDIAG_DB", str(tmp_path / "kb.sqlite"))  # where kdiag run may record its diagnosis
    cmd = "import sys; print('RuntimeError: CUDA error: out of memory', file=sys.stderr); sys.exit(1)"
    req = RunRequest(("--", sys.executable, "-c", cmd), ("--cpu", "--ladder", "none"), tmp_path / "runs")
    seen: list[Progress] = []
    done = subprocess_runner(req, seen.append, threading.Event())
    assert done.error is None, done.stderr_tail
    assert done.exit_code == 1 and done.case is not None
    assert done.case.run and done.case.run["target"]["kind"] == "command"
    assert "out of memory" in (done.case.log or "")
    assert seen and all(b.elapsed_s >= a.elapsed_s for a, b in itertools.pairwise(seen))
    assert any(p.run_dir for p in seen)


def test_the_subprocess_runner_cancels_the_whole_run(tmp_path, monkeypatch):
    monkeypatch.setenv("KDIAG_DB", str(tmp_path / "kb.sqlite"))
    req = RunRequest(("--", sys.executable, "-c", "import time; time.sleep(120)"), ("--cpu",), tmp_path / "runs")
    cancel = threading.Event()

    def progress(p: Progress) -> None:
        if p.elapsed_s > 1.0:
            cancel.set()

    done = subprocess_runner(req, progress, cancel)
    assert done.cancelled and done.case is None
    assert done.elapsed_s < 120  # it ended before the child's own sleep would have


def test_a_run_request_puts_options_before_a_command():
    req = RunRequest(("--", "ls", "-l"), ("--cpu",))
    argv = req.argv()
    assert argv[argv.index("--") :] == ["--", "ls", "-l"]
    assert argv.index("--cpu") < argv.index("--")
