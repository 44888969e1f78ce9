"""How the screens look, at a fixed terminal size, against committed SVG baselines.

The cases come from files (`kdiag classify` results, `kdiag run` directories: fixtures/make_fixtures.py),
not from classifying here, so the looks move only when the TUI changes.  Update the baselines after a
deliberate change: ``pytest tests/tui/test_tui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from tui.app import make_app
from tui.model import Case, Cited
from tui.runner import Progress, RunDone, RunRequest

SIZE = (140, 40)


async def _settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _case(cases, case_id):
    return next(c for c in cases if c.id == case_id)


def test_batch_screen(snap_compare, real_dev_results, rules):
    assert snap_compare(make_app(real_dev_results, rules=rules, source="real-dev.results.jsonl"), terminal_size=SIZE)


def test_batch_filtered_to_the_unknowns(snap_compare, real_dev_results, rules):
    app = make_app(real_dev_results, rules=rules, source="real-dev.results.jsonl")
    assert snap_compare(app, press=["u"], terminal_size=SIZE)


def test_detail_verdict(snap_compare, run_case, rules):
    app = make_app([run_case], rules=rules, source="a run directory")
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)


def test_detail_log_with_markup_and_escapes(snap_compare, rules):
    # a log built for this test: compiler-style brackets and colour codes must be drawn as written
    log = (
        "compiling...\n"
        "\x1b[1;31mRuntimeError: CUDA error: an illegal memory access was encountered\x1b[0m\n"
        "[bold]not a style[/] and [/] alone and [red on blue]\n"
    )
    case = Case(
        id="markup",
        status="unknown",
        category="unknown",
        failure_mode="unmatched",
        confidence=None,
        rule=None,
        title="No rule matched this failure",
        log=log,
        cited=(Cited(2, log.splitlines()[1], "cuda"), Cited(3, log.splitlines()[2], "log")),
    )
    app = make_app([case], rules=rules, source="a log")
    assert snap_compare(app, press=["l"], terminal_size=SIZE, run_before=_settle)


def test_detail_numerics_histogram(snap_compare, numerics_case, rules):
    app = make_app([numerics_case], rules=rules, source="a run directory")
    assert snap_compare(app, press=["5"], terminal_size=SIZE, run_before=_settle)


def test_label_dialog(snap_compare, real_dev_results, rules):
    class Nowhere:
        def unavailable(self):
            return None

        def label(self, case, **kw):  # pragma: no cover - the snapshot never saves
            raise AssertionError

    case = _case(real_dev_results, "lightllm-triton20-sm89")
    app = make_app([case], rules=rules, labeller=Nowhere(), source="real-dev.results.jsonl")
    assert snap_compare(app, press=["m"], terminal_size=SIZE, run_before=_settle)


def test_run_in_progress(snap_compare, rules):
    def runner(request, on_progress, cancel):
        on_progress(
            Progress(
                12.5,
                "1-plain",
                ("stderr: step 3", "stderr: [bold]x[/]"),
                ".kdiag/runs/r1",
                ("inputs", "reference", "1-plain"),
            )
        )
        cancel.wait(30)
        return RunDone(None, None, (), "cancelled", 12.5, cancelled=True)

    req = RunRequest(("corpus/kernels/missing_mask_tail.py",), ("--cpu",))
    app = make_app([], rules=rules, runner=runner, triage=req, source="kdiag triage")

    async def shown(pilot):
        for _ in range(100):
            if "1-plain" in str(pilot.app.screen.query_one("#run-status").render()):
                break
            await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=shown)
