"""`kdiag run -- CMD`: any command, supervised; a failed run is data."""

from __future__ import annotations

import sys
from pathlib import Path


def test_clean_command_passes(kdiag_run) -> None:
    code, out, _ = kdiag_run("--", sys.executable, "-c", "print('hello')")
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (0, "pass", "none")
    assert out["target"]["argv"] == [sys.executable, "-c", "print('hello')"]
    assert (Path(out["run_dir"]) / "rungs" / "1-plain" / "stdout").read_text() == "hello\n"


def test_exit_3_is_a_failure_and_the_gpu_rungs_say_why_they_did_not_run(kdiag_run) -> None:
    code, out, _ = kdiag_run("--", sys.executable, "-c", "import sys; sys.exit(3)")
    assert out is not None
    assert (code, out["verdict"]) == (1, "fail")
    assert out["rungs"][0]["exit_code"] == 3
    assert out["rungs_unavailable"] == ["launch-blocking: no GPU", "memcheck: no GPU"]


def test_segfault_is_recorded(kdiag_run) -> None:
    code, out, _ = kdiag_run("--ladder", "none", "--", sys.executable, "-c", "import ctypes; ctypes.string_at(0)")
    assert out is not None
    assert (code, out["verdict"]) == (1, "fail")
    assert out["rungs"][0]["signal"] == "SIGSEGV"
    assert "exit-segfault" in [f["rule"] for f in out["findings"]]


def test_dash_dash_keeps_the_commands_own_options(kdiag_run) -> None:
    # --format after `--` belongs to the command, not to kdiag
    _, out, _ = kdiag_run("--", sys.executable, "-c", "import sys; print(sys.argv[1:])", "--format", "x")
    assert out is not None and out["verdict"] == "pass"
    assert (Path(out["run_dir"]) / "rungs/1-plain/stdout").read_text().strip() == "['--format', 'x']"
