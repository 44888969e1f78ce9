"""The ladder loop alone: one loop, any attempt function; it records every rung in the run's log and
climbs only while the failure is unexplained (no child runs here: the attempt function stands in)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from diagnose import facts as F
from diagnose.collectors import collect
from diagnose.run import climb as climb_module
from diagnose.run import ladder as L
from diagnose.run.climb import Step, climb
from diagnose.run.context import RunContext, make_context
from diagnose.run.result import Options
from diagnose.run.targets import Target
from diagnose.runner.process import Outcome, RunRequest
from diagnose.runner.process import run as run_process

ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered\n"


def _context(tmp_path: Path, **opts: object) -> RunContext:
    return make_context(Target(kind="command", argv=("true",)), Options(runs_dir=tmp_path, gpu=False, **opts))  # type: ignore[arg-type]


def _attempt(ctx: RunContext, seen: list[tuple[str, tuple[str, ...], tuple[str, ...]]], verdict: str = "fail"):
    def attempt(rung: L.Rung, folder: Path, rungs: tuple[str, ...]) -> Step:
        folder.mkdir(parents=True)
        seen.append((rung.name, rungs, tuple(rung.env)))
        ev = collect(ILLEGAL, exit_code=1).replace(run=F.RunFacts(target="command", rungs=rungs))
        return Step(None, ev, verdict, ("true",))

    return attempt


def test_an_unexplained_failure_climbs_every_rung_it_can(tmp_path: Path) -> None:
    ctx = dataclasses.replace(_context(tmp_path, ladder="quick"), gpu=True, sanitizer="/opt/cs/compute-sanitizer")
    seen: list = []
    step, unavailable = climb(ctx, _attempt(ctx, seen))
    assert [name for name, _, _ in seen] == ["plain", "launch-blocking", "memcheck"]
    assert seen[2][1] == ("plain", "launch-blocking", "memcheck") and "CUDA_LAUNCH_BLOCKING" in seen[1][2]
    assert [r.name for r in ctx.log.rungs] == ["plain", "launch-blocking", "memcheck"]
    assert [r.dir for r in ctx.log.rungs] == ["rungs/1-plain", "rungs/2-launch-blocking", "rungs/3-memcheck"]
    assert ctx.log.rungs[2].changed["wrapper"] == "compute-sanitizer --tool memcheck"
    assert not any(r.explained for r in ctx.log.rungs) and unavailable == ()
    assert (tmp_path / ctx.run_id / "rungs" / "3-memcheck" / "evidence.json").is_file()
    assert step.evidence.run is not None and step.evidence.run.rungs[-1] == "memcheck"


def test_without_a_gpu_the_loop_says_what_could_not_run(tmp_path: Path) -> None:
    ctx = _context(tmp_path, ladder="full")
    seen: list = []
    _, unavailable = climb(ctx, _attempt(ctx, seen))
    assert [name for name, _, _ in seen] == ["plain"]
    assert "launch-blocking: no GPU" in unavailable and "memcheck: no GPU" in unavailable


def test_a_pass_stops_at_the_first_rung(tmp_path: Path) -> None:
    ctx = dataclasses.replace(_context(tmp_path), gpu=True, sanitizer="/opt/cs/compute-sanitizer")
    seen: list = []
    step, unavailable = climb(ctx, _attempt(ctx, seen, verdict="pass"))
    assert [name for name, _, _ in seen] == ["plain"] and step.verdict == "pass" and unavailable == ()
    assert [(r.name, r.verdict, r.explained, r.category) for r in ctx.log.rungs] == [("plain", "pass", True, None)]


# ---- the full ladder's sweep of a run that passed (on a GPU: every sanitizer tool runs over it) ----

H200 = Path(__file__).resolve().parent.parent / "fixtures" / "gpu-h200"


def _real_outcome(tmp_path: Path, script: str, timeout: float = 30.0) -> Outcome:
    """A real child's outcome (``sh -c SCRIPT``): its exit status or its timeout is what the loop reads."""
    tag = str(len(list(tmp_path.glob("out-*"))))
    return run_process(
        RunRequest(
            argv=("sh", "-c", script), cwd=tmp_path, env=dict(os.environ), timeout=timeout,
            stdout_path=tmp_path / f"out-{tag}", stderr_path=tmp_path / f"err-{tag}",
        )
    )  # fmt: skip


def _sweep_attempt(ctx: RunContext, seen: list[str], results: dict[str, tuple[Outcome, str, str]]):
    """The plain rung passes; each sanitizer rung gives (outcome, verdict, sanitizer log) from ``results``."""

    def attempt(rung: L.Rung, folder: Path, rungs: tuple[str, ...]) -> Step:
        folder.mkdir(parents=True)
        seen.append(rung.name)
        outcome, verdict, log = results.get(rung.name, (results["plain"][0], "pass", ""))
        ev = collect(log, exit_code=outcome.exit_code).replace(run=F.RunFacts(target="command", rungs=rungs))
        return Step(outcome, ev, verdict, ("true",))

    return attempt


def test_the_full_ladder_sweeps_a_passing_run_with_every_sanitizer_tool(tmp_path: Path) -> None:
    ctx = dataclasses.replace(
        _context(tmp_path / "runs", ladder="full"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"
    )
    ok = _real_outcome(tmp_path, "exit 0")
    seen: list[str] = []
    step, unavailable = climb(ctx, _sweep_attempt(ctx, seen, {"plain": (ok, "pass", "")}))
    assert seen == ["plain", "memcheck", "racecheck", "initcheck", "synccheck"] and unavailable == ()
    assert step.verdict == "pass" and [r.verdict for r in ctx.log.rungs] == ["pass"] * 5
    assert all("CUDA_LAUNCH_BLOCKING" in r.changed for r in ctx.log.rungs[1:])
    assert ctx.log.rungs[1].why.startswith("the run passed: the full ladder checks it under memcheck")


def test_the_quick_ladder_and_a_machine_without_a_gpu_do_not_sweep(tmp_path: Path) -> None:
    ok = _real_outcome(tmp_path, "exit 0")
    for ctx in (
        dataclasses.replace(_context(tmp_path / "q", ladder="quick"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"),
        _context(tmp_path / "cpu", ladder="full"),
    ):
        seen: list[str] = []
        step, _ = climb(ctx, _sweep_attempt(ctx, seen, {"plain": (ok, "pass", "")}))
        assert seen == ["plain"] and step.verdict == "pass"


def test_a_sanitizer_report_overturns_the_pass_and_stops_the_sweep(tmp_path: Path) -> None:
    # memcheck's report on an H200 (tests/fixtures/gpu-h200): an index 8 GiB past a 512-byte buffer; the
    # sanitizer's --error-exitcode (86) is what says it found something
    log = (H200 / "illegal_address" / "4-memcheck.sanitizer.log").read_text()
    ctx = dataclasses.replace(
        _context(tmp_path / "runs", ladder="full"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"
    )
    results = {"plain": (_real_outcome(tmp_path, "exit 0"), "pass", ""),
               "memcheck": (_real_outcome(tmp_path, f"exit {L.SANITIZER_EXIT}"), "fail", log)}  # fmt: skip
    seen: list[str] = []
    step, _ = climb(ctx, _sweep_attempt(ctx, seen, results))
    assert seen == ["plain", "memcheck"] and step.verdict == "fail"
    assert step.evidence.sanitizer is not None and ctx.log.rungs[-1].explained
    assert ctx.matcher.diagnose(step.evidence).category == "kernel-logic"


def test_a_sweep_rung_that_fails_without_a_sanitizer_report_leaves_the_pass_standing(tmp_path: Path) -> None:
    # a kernel 10-100x slower under the sanitizer that runs past the limit is not a hang: the pass stands,
    # the tools left are skipped and the report says why
    ctx = dataclasses.replace(
        _context(tmp_path / "runs", ladder="full"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"
    )
    ok = _real_outcome(tmp_path, "exit 0")
    slow = _real_outcome(tmp_path, "sleep 5", timeout=0.3)
    assert slow.timed_out
    seen: list[str] = []
    step, unavailable = climb(
        ctx, _sweep_attempt(ctx, seen, {"plain": (ok, "pass", ""), "racecheck": (slow, "fail", "")})
    )
    assert seen == ["plain", "memcheck", "racecheck"] and step.verdict == "pass"
    assert [u.split(":")[0] for u in unavailable] == ["initcheck", "synccheck"]
    assert "under racecheck the run ran past the time limit with no sanitizer report" in unavailable[0]


def test_a_hang_is_not_run_under_every_tool_once_a_sanitizer_run_timed_out(tmp_path: Path) -> None:
    # on an H200 a kernel that spins forever took 30 s under each of five rungs: after synccheck (the tool a
    # hang calls for) also runs out of time, the others would only time out as well
    ctx = dataclasses.replace(
        _context(tmp_path / "runs", ladder="full"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"
    )
    hung = _real_outcome(tmp_path, "sleep 5", timeout=0.3)
    seen: list[str] = []

    def attempt(rung: L.Rung, folder: Path, rungs: tuple[str, ...]) -> Step:
        folder.mkdir(parents=True)
        seen.append(rung.name)
        return Step(
            hung, collect("", exit_code=None).replace(run=F.RunFacts(target="command", rungs=rungs)), "fail", ("true",)
        )

    _, unavailable = climb(ctx, attempt)
    assert seen == ["plain", "launch-blocking", "synccheck"]
    assert [u.split(":")[0] for u in unavailable] == ["memcheck", "racecheck", "initcheck"]


def test_sanitizer_rungs_of_runs_side_by_side_take_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # another process holds the machine's sanitizer lock for a while: this run's memcheck rung waits for it
    # (and says so), while the plain rung does not take the lock at all (a lock of the test's own, so that the
    # suite's other sanitizer rungs, run side by side, do not wait on it)
    lock = tmp_path / "sanitizer.lock"
    monkeypatch.setattr(climb_module, "sanitizer_lock_path", lambda: lock)
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, pathlib, sys, time\n"
         f"fh = open({str(lock)!r}, 'a+'); fcntl.flock(fh, fcntl.LOCK_EX)\n"
         f"pathlib.Path({str(ready)!r}).write_text('held'); time.sleep(3)"],
    )  # fmt: skip
    try:
        for _ in range(200):
            if ready.exists():
                break
            time.sleep(0.05)
        assert ready.exists()
        ctx = dataclasses.replace(
            _context(tmp_path / "runs", ladder="quick"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"
        )
        seen: list = []
        climb(ctx, _attempt(ctx, seen))
        assert [name for name, _, _ in seen] == ["plain", "launch-blocking", "memcheck"]
        waits = [n for n in ctx.log.notes if "waited" in n]
        assert len(waits) == 1 and waits[0].startswith("memcheck: waited"), ctx.log.notes
    finally:
        holder.wait(timeout=30)


def test_a_lock_that_cannot_be_opened_leaves_the_rung_running_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(climb_module, "sanitizer_lock_path", lambda: tmp_path / "no-such-folder" / "lock")
    ctx = dataclasses.replace(
        _context(tmp_path / "runs", ladder="quick"), gpu=True, sanitizer="/opt/cs/compute-sanitizer"
    )
    seen: list = []
    climb(ctx, _attempt(ctx, seen))
    assert [name for name, _, _ in seen] == ["plain", "launch-blocking", "memcheck"]
    assert any(n.startswith("memcheck: ran without the machine's compute-sanitizer lock") for n in ctx.log.notes)
