"""The ladder loop alone: one loop, any attempt function; it records every rung in the run's log and
climbs only while the failure is unexplained (no child runs here: the attempt function stands in)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from diagnose import facts as F
from diagnose.collectors import collect
from diagnose.run import ladder as L
from diagnose.run.climb import Step, climb
from diagnose.run.context import RunContext, make_context
from diagnose.run.result import Options
from diagnose.run.targets import Target

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
