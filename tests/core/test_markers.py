"""Tests that need what a machine may lack are deselected and counted in the summary, never skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_toolkit_tests_are_deselected_and_counted_without_nvcc(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python").symlink_to(sys.executable)
    env = dict(os.environ, PATH=str(bindir), PYTHONPATH=str(ROOT))  # no nvcc on this PATH
    target = "tests/collectors/test_cuda_errors.py::test_generator_reproduces_the_checked_in_table"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", target], cwd=ROOT, env=env, capture_output=True, text=True
    )
    out = proc.stdout + proc.stderr
    assert "1 CUDA-toolkit test deselected: nvcc not on PATH" in out, out
    assert "skipped" not in out and proc.returncode == 5, out  # 5: nothing left to run, nothing skipped


def test_the_count_reaches_the_summary_under_pytest_xdist_too(tmp_path: Path) -> None:
    # make test runs the suite on pytest-xdist workers: they deselect, the controller writes the summary
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python").symlink_to(sys.executable)
    env = dict(os.environ, PATH=str(bindir), PYTHONPATH=str(ROOT))
    target = "tests/collectors/test_cuda_errors.py::test_generator_reproduces_the_checked_in_table"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-n", "2", target],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    out = proc.stdout + proc.stderr
    assert "1 CUDA-toolkit test deselected: nvcc not on PATH" in out, out
    assert "skipped" not in out, out


def test_the_markers_are_registered() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--markers"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "@pytest.mark.gpu:" in proc.stdout and "@pytest.mark.toolkit:" in proc.stdout
