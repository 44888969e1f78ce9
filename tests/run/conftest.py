"""Helpers for the `kdiag run` tests: write a target, run the real CLI (real children), read its JSON."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from diagnose.cli import main


def _write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: starts real children that import torch (seconds); in the default run")


@pytest.fixture
def write():
    """write(folder, name, source) -> path: a target file, source dedented."""
    return _write


@pytest.fixture
def kdiag_run(tmp_path: Path):
    """kdiag_run(args...) -> (exit code, JSON object or None, stderr); runs under tmp_path, no GPU assumed."""

    def run(*args: str, cpu: bool = True) -> tuple[int, dict[str, Any] | None, str]:
        out, err = io.StringIO(), io.StringIO()
        # kdiag's options first: after `--` everything belongs to the command
        argv = ["run", "--format", "json", "--runs-dir", str(tmp_path / "runs"), "--timeout", "120"]
        argv += ["--db", str(tmp_path / "kb.sqlite")]  # it records as by default, not in the checkout's .kdiag/
        argv += ["--cpu"] if cpu else []
        argv += args
        code = main(argv, out=out, err=err)
        text = out.getvalue()
        return code, (json.loads(text) if text.strip() else None), err.getvalue()

    return run
