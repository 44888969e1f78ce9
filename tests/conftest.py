"""Tests that need hardware or tools this machine may lack are deselected and counted, never skipped.

``@pytest.mark.gpu``: needs an NVIDIA GPU (NVML sees at least one device).
``@pytest.mark.toolkit``: needs the CUDA 13 toolkit (nvcc on PATH, libcudart under /usr/local/cuda-13.0).
Every other test runs everywhere; the terminal summary says how many of each kind were left out and why.

``corpus_run``: a ``kdiag run`` of a corpus file, once per session for each set of options.
"""

from __future__ import annotations

import io
import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

LIBCUDART = Path("/usr/local/cuda-13.0/lib64/libcudart.so")


@cache
def gpu_count() -> int:
    try:
        import pynvml  # nvidia-ml-py, a kdiag dependency

        pynvml.nvmlInit()
    except Exception:
        return 0
    try:
        return int(pynvml.nvmlDeviceGetCount())
    except Exception:
        return 0
    finally:
        pynvml.nvmlShutdown()


def missing(marker: str) -> str | None:
    """Why tests with this marker cannot run here (None: they can)."""
    if marker == "gpu":
        return None if gpu_count() > 0 else "no GPU"
    if marker == "toolkit":
        if shutil.which("nvcc") is None:
            return "nvcc not on PATH"
        return None if LIBCUDART.exists() else f"{LIBCUDART} not found"
    return None


_LABELS = {"gpu": "GPU-only", "toolkit": "CUDA-toolkit"}
_DESELECTED: dict[str, tuple[int, str]] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    keep, drop = [], []
    counts: dict[str, int] = {}
    for item in items:
        why = [m for m in _LABELS if item.get_closest_marker(m) is not None and missing(m)]
        if why:
            drop.append(item)
            counts[why[0]] = counts.get(why[0], 0) + 1
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    for marker, n in counts.items():
        _DESELECTED[marker] = (n, missing(marker) or "")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for marker, (n, why) in _DESELECTED.items():
        terminalreporter.write_line(f"{n} {_LABELS[marker]} test{'s' if n != 1 else ''} deselected: {why}")


_CORPUS_RUNS: dict[tuple[str, ...], tuple[int, dict[str, Any], str]] = {}


@pytest.fixture(scope="session")
def corpus_run(tmp_path_factory: pytest.TempPathFactory):
    """corpus_run(path, probes="none", timeout=120, extra=()) -> (exit code, JSON report, stderr).

    ``kdiag run PATH --format json --cpu --no-record --probes P --timeout T EXTRA``, the real CLI with real
    children (each imports torch; Triton runs interpreted: seconds to tens of seconds a run).  One run per
    (path, probes, timeout, extra) in the session: the corpus label tests, the numerics tests and the probe
    tests assert different things about the same seeded runs, and read one report.
    """

    def run(path: Path | str, probes: str = "none", timeout: int = 120, extra: tuple[str, ...] = ()):
        key = (str(path), probes, str(timeout), *extra)
        if key not in _CORPUS_RUNS:
            from diagnose.cli import main

            out, err = io.StringIO(), io.StringIO()
            runs = tmp_path_factory.mktemp("corpus-runs")
            argv = ["run", str(path), "--format", "json", "--cpu", "--no-record", "--runs-dir", str(runs)]
            code = main([*argv, "--probes", probes, "--timeout", str(timeout), *extra], out=out, err=err)
            assert out.getvalue().strip(), err.getvalue()
            _CORPUS_RUNS[key] = code, json.loads(out.getvalue()), err.getvalue()
        return _CORPUS_RUNS[key]

    return run
