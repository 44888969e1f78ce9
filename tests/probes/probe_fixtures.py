"""Helpers of the probe tests (imported by them: a second conftest.py would clash with tests/run's).

The real CLI with real children (no GPU assumed), and its JSON.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from diagnose.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "corpus" / "kernels"


def kdiag_runner(tmp_path: Path):
    """kdiag_run(args...) -> (exit code, JSON report, stderr), on the CPU, runs under tmp_path."""

    def run(*args: str) -> tuple[int, dict[str, Any], str]:
        out, err = io.StringIO(), io.StringIO()
        argv = ["run", "--format", "json", "--runs-dir", str(tmp_path / "runs"), "--timeout", "120", "--cpu", *args]
        argv[1:1] = ["--db", str(tmp_path / "kb.sqlite")]  # it records as by default, not in the checkout's .kdiag/
        code = main(argv, out=out, err=err)
        text = out.getvalue()
        assert text.strip(), err.getvalue()
        return code, json.loads(text), err.getvalue()

    return run
