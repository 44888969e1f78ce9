"""Runs for ``kdiag triage`` and re-runs: ``kdiag run`` as a child process, watched while it works.

The TUI never imports the run machinery: it starts ``python -m diagnose.cli run TARGET ...
--format json --runs-dir DIR`` in its own session, streams the child's stderr, and watches the
new run directory for the rung running and the tail of that rung's output files.  When the
child exits, its JSON report (stdout) and the run directory's ``evidence.json`` become a case.

A runner is any callable ``(RunRequest, on_progress, cancel) -> RunDone``; the app gets one
through :func:`tui.app.make_app`, so tests pass a runner that needs no GPU and no torch.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tui.model import Case, from_run

#: a re-run's rung → the `kdiag run` options that reach it (kdiag run climbs its ladder while the
#: failure is unexplained; it has no switch to force one rung)
RUNGS: dict[str, tuple[str, ...]] = {
    "launch-blocking": ("--ladder", "quick"),
    "memcheck": ("--ladder", "full"),
    "racecheck": ("--ladder", "full"),
    "probes full": ("--probes", "full"),
}
POLL_S = 0.25
TAIL = 12


@dataclass(frozen=True)
class RunRequest:
    target: tuple[str, ...]  # TARGET as `kdiag run` takes it (a file, or `-- CMD ...`)
    options: tuple[str, ...] = ()  # run options (--ladder full, --cpu, ...)
    runs_dir: Path = Path(".kdiag/runs")

    def argv(self) -> list[str]:
        opts = [*self.options, "--format", "json", "--runs-dir", str(self.runs_dir)]
        if "--" in self.target:  # options go before `--`: everything after it is the command
            i = self.target.index("--")
            return [*self.target[:i], *opts, *self.target[i:]]
        return [*self.target, *opts]


@dataclass(frozen=True)
class Progress:
    elapsed_s: float
    rung: str | None  # the rung folder being written (1-plain, 2-launch-blocking, ...), or a child's name
    tail: tuple[str, ...]  # last lines of kdiag's stderr, then of the running child's output
    run_dir: str | None = None
    steps: tuple[str, ...] = ()  # every child and rung started so far, oldest first


@dataclass(frozen=True)
class RunDone:
    exit_code: int | None
    case: Case | None
    stderr_tail: tuple[str, ...] = ()
    error: str | None = None  # why there is no case
    elapsed_s: float = 0.0
    cancelled: bool = False


class Runner(Protocol):
    def __call__(
        self, request: RunRequest, on_progress: Callable[[Progress], None], cancel: threading.Event
    ) -> RunDone: ...


def retarget(case: Case, rung: str) -> RunRequest | None:
    """The request that re-runs a case's target with a rung; None when the case is not from a run."""
    run = case.run or {}
    target = run.get("target") or {}
    if not isinstance(target, dict):
        return None
    if target.get("kind") == "command" and target.get("argv"):
        tgt: tuple[str, ...] = ("--", *map(str, target["argv"]))
    elif target.get("path"):
        tgt = (str(target["path"]),)
        if target.get("reference"):
            tgt += ("--reference", str(target["reference"]))
    else:
        return None
    opts = list(RUNGS[rung])
    if run.get("device") == "cpu" or run.get("interpreter"):
        opts.append("--cpu")  # the first run had no GPU: keep the re-run comparable
    run_dir = run.get("run_dir")
    runs_dir = Path(str(run_dir)).parent if run_dir else Path(".kdiag/runs")
    return RunRequest(tgt, tuple(opts), runs_dir)


@dataclass
class _Watch:
    before: set[str]
    runs_dir: Path
    run_dir: Path | None = None
    steps: list[str] = field(default_factory=list)

    @staticmethod
    def _steps(rd: Path) -> list[Path]:
        with contextlib.suppress(OSError):
            return [p for sub in ("children", "rungs") for p in (rd / sub).glob("*") if p.is_dir()]
        return []

    def find(self) -> Path | None:
        if self.run_dir is None and self.runs_dir.is_dir():
            new = sorted(p for p in self.runs_dir.iterdir() if p.is_dir() and p.name not in self.before)
            self.run_dir = new[-1] if new else None
        return self.run_dir

    def rung(self) -> tuple[str | None, list[str]]:
        """The newest rung (or child) folder, and the tail of its stderr/stdout."""
        rd = self.find()
        if rd is None:
            return None, []
        folders = [p for p in (rd / "rungs").glob("*") if p.is_dir()] or [
            p for p in (rd / "children").glob("*") if p.is_dir()
        ]
        if not folders:
            return None, []
        self.steps = [p.name for p in sorted(self._steps(rd), key=lambda p: p.stat().st_mtime)]
        newest = max(folders, key=lambda p: p.stat().st_mtime)
        tail: list[str] = []
        for name in ("stderr", "stdout"):
            f = newest / name
            with contextlib.suppress(OSError):
                if f.is_file():
                    data = f.read_bytes()[-4000:].decode("utf-8", "replace")
                    tail += [f"{name}: {x}" for x in data.splitlines()[-4:]]
        return newest.name, tail


def kdiag_argv() -> list[str]:
    """How to start kdiag's CLI in a child: this interpreter, the core's module (no UI imported)."""
    return [sys.executable, "-m", "diagnose.cli", "run"]


def subprocess_runner(request: RunRequest, on_progress: Callable[[Progress], None], cancel: threading.Event) -> RunDone:
    """Run ``kdiag run`` in a child and report progress every :data:`POLL_S` seconds."""
    t0 = time.monotonic()
    request.runs_dir.mkdir(parents=True, exist_ok=True)
    watch = _Watch({p.name for p in request.runs_dir.iterdir()}, request.runs_dir)
    err_lines: deque[str] = deque(maxlen=TAIL)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        try:
            proc = subprocess.Popen(
                [*kdiag_argv(), *request.argv()],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
                start_new_session=True,  # its own process group: a cancel stops the children too
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            return RunDone(None, None, error=f"could not start kdiag run: {exc}")

        def read_stderr() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                err_lines.append(line.rstrip("\n"))

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        cancelled = False
        while proc.poll() is None:
            if cancel.is_set():
                cancelled = True
                _stop(proc)
                break
            rung, tail = watch.rung()
            rd = watch.find()
            on_progress(
                Progress(time.monotonic() - t0, rung, (*err_lines, *tail), str(rd) if rd else None, tuple(watch.steps))
            )
            time.sleep(POLL_S)
        proc.wait()
        reader.join(timeout=2)
        elapsed = time.monotonic() - t0
        if cancelled:
            return RunDone(proc.returncode, None, tuple(err_lines), "cancelled", elapsed, cancelled=True)
        out.seek(0)
        text = out.read()
    try:
        report = json.loads(text)
    except ValueError:
        why = err_lines[-1] if err_lines else f"kdiag run exited {proc.returncode} without a report"
        return RunDone(proc.returncode, None, tuple(err_lines), why, elapsed)
    evidence = None
    rd = Path(str(report.get("run_dir") or ""))
    with contextlib.suppress(OSError, ValueError):
        evidence = json.loads((rd / "evidence.json").read_text(encoding="utf-8"))
    return RunDone(proc.returncode, from_run(report, evidence), tuple(err_lines), None, elapsed)


def _stop(proc: subprocess.Popen[str]) -> None:
    """SIGINT, SIGTERM, SIGKILL to the child's process group, with short grace periods."""
    for sig, grace in ((signal.SIGINT, 2.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=grace or None)
            return
        except subprocess.TimeoutExpired:
            continue
