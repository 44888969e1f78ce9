"""Xid events NVML reports while an attempt runs reach the snapshot and the GPU facts rules see."""

from __future__ import annotations

import json
from pathlib import Path

from diagnose.envinfo import nvml as N
from diagnose.envinfo.nvml_replay import ReplayNvml
from diagnose.run.children import xid_watch
from diagnose.run.context import RunLog

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nvml"


def test_xid_during_attempt_reaches_gpu_facts(tmp_path: Path, monkeypatch) -> None:
    # the constructed healthy-H100 recording, plus an Xid 79 event: it stands in for the driver
    recording = json.loads((FIXTURES / "healthy-h100.json").read_text())
    recording["xid_events"] = [{"device": 0, "xid": 79}]
    monkeypatch.setattr(N, "LiveNvml", lambda: ReplayNvml.from_dict(recording))
    log = RunLog(snapshot={"nvml": {}})
    with xid_watch(True, tmp_path, log):
        import time

        time.sleep(0.5)
    assert log.snapshot is not None and log.snapshot["nvml"]["xid_events"] == [{"device": 0, "xid": 79}]
    assert log.gpu_facts is not None and 79 in log.gpu_facts.xids
    assert json.loads((tmp_path / "env.json").read_text())["nvml"]["xid_events"][0]["xid"] == 79


def test_no_gpu_no_watch(tmp_path: Path) -> None:
    log = RunLog(snapshot={"nvml": {}})
    with xid_watch(False, tmp_path, log):
        pass
    assert "xid_events" not in log.snapshot["nvml"] and not log.notes


def test_cpu_run_reports_the_missing_gpu_as_information(tmp_path: Path) -> None:
    # issue 5: a CPU run under the Triton interpreter says why there is no GPU, and passes
    import io

    from diagnose.cli import main

    root = Path(__file__).resolve().parent.parent.parent
    out = io.StringIO()
    code = main(
        [
            "run",
            str(root / "corpus" / "kernels" / "vector_add.py"),
            "--format",
            "json",
            "--runs-dir",
            str(tmp_path),
            "--probes",
            "none",
        ],
        out=out,
    )
    rep = json.loads(out.getvalue())
    assert code == 0 and rep["verdict"] == "pass" and rep["category"] == "none", rep
    assert rep["machine"] and "no usable GPU" in rep["machine"] and "information" in rep["machine"]
    assert not [f for f in rep["findings"] if f["category"] == "environment"]
