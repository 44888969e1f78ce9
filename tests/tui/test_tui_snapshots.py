"""How the screens look, at a fixed terminal size, against committed SVG baselines.

Update the baselines after a deliberate change of looks: ``pytest tests/tui/test_tui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import diagnose
from tui.app import make_app
from tui.model import from_report
from tui.runner import Progress, RunDone, RunRequest

SIZE = (140, 40)


async def _settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _case(real_dev, case_id):
    return next(c for c in real_dev if c.id == case_id)


def test_batch_screen(snap_compare, real_dev, rules):
    assert snap_compare(make_app(real_dev, rules=rules, source="real-dev.yaml"), terminal_size=SIZE)


def test_batch_filtered_to_the_unknowns(snap_compare, real_dev, rules):
    app = make_app(real_dev, rules=rules, source="real-dev.yaml")
    assert snap_compare(app, press=["u"], terminal_size=SIZE)


def test_detail_verdict(snap_compare, real_dev, rules):
    app = make_app([_case(real_dev, "onnxruntime-resize-trilinear-oob-write")], rules=rules, source="real-dev.yaml")
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)


def test_detail_log_with_markup_and_escapes(snap_compare, rules):
    log = (
        "compiling...\n"
        "\x1b[1;31mRuntimeError: CUDA error: an illegal memory access was encountered\x1b[0m\n"
        "[bold]not a style[/] and [/] alone and [red on blue]\n"
    )
    app = make_app([from_report(diagnose.classify_log(log, id="markup"))], rules=rules, source="a log")
    assert snap_compare(app, press=["l"], terminal_size=SIZE, run_before=_settle)


def test_detail_numerics_histogram(snap_compare, numerics_case, rules):
    app = make_app([numerics_case], rules=rules, source="a run directory")
    assert snap_compare(app, press=["5"], terminal_size=SIZE, run_before=_settle)


def test_label_dialog(snap_compare, real_dev, rules):
    class Nowhere:
        def unavailable(self):
            return None

        def label(self, case, **kw):  # pragma: no cover - the snapshot never saves
            raise AssertionError

    app = make_app([_case(real_dev, "lightllm-triton20-sm89")], rules=rules, labeller=Nowhere(), source="real-dev.yaml")
    assert snap_compare(app, press=["m"], terminal_size=SIZE, run_before=_settle)


def test_run_in_progress(snap_compare, rules):
    def runner(request, on_progress, cancel):
        on_progress(Progress(12.5, "2-launch-blocking", ("stderr: step 3", "stderr: [bold]x[/]"), ".kdiag/runs/r1"))
        cancel.wait(30)
        return RunDone(None, None, (), "cancelled", 12.5, cancelled=True)

    req = RunRequest(("corpus/kernels/missing_mask_tail.py",), ("--cpu",))
    app = make_app([], rules=rules, runner=runner, triage=req, source="kdiag triage")

    async def shown(pilot):
        for _ in range(100):
            if "2-launch-blocking" in str(pilot.app.screen.query_one("#run-status").render()):
                break
            await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=shown)
