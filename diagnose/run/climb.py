"""The ladder loop, written once: run a rung with the target's attempt function, diagnose it, record
it, and climb while the failure is unexplained (which rung comes next: :mod:`diagnose.run.ladder`)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose.evidence import Evidence
from diagnose.matcher import Diagnosis
from diagnose.run import ladder as L
from diagnose.run import runfacts as R
from diagnose.run.context import RunContext
from diagnose.runner import Outcome


@dataclass(frozen=True)
class Step:
    """What one rung's attempt gave: the evidence of it and its verdict (``state``: the target's own)."""

    outcome: Outcome | None
    evidence: Evidence
    verdict: str
    argv: tuple[str, ...]
    state: Any = None
    diag: Diagnosis | None = None  # when the attempt needed it for its verdict


#: (rung, its folder, the names of the rungs that ran with it) → the step
Attempt = Callable[[L.Rung, Path, tuple[str, ...]], Step]


def wrapper(ctx: RunContext, rung: L.Rung, folder: Path) -> list[str]:
    """What goes in front of the target's argv: compute-sanitizer on a sanitizer rung."""
    if rung.tool and ctx.sanitizer:
        return L.sanitizer_argv(ctx.sanitizer, rung.tool, str(folder / "sanitizer.log"))
    return []


def sanitizer_log(folder: Path) -> str:
    p = folder / "sanitizer.log"
    return p.read_text(errors="replace") if p.is_file() else ""


def write_evidence(folder: Path, ev: Evidence) -> None:
    (folder / "evidence.json").write_text(json.dumps(ev.to_dict(), indent=1, default=str))


def sanitizer_lock_path() -> Path:
    """One lock per user and machine (in the temp folder) that every kdiag's sanitizer rungs take turns on."""
    return Path(tempfile.gettempdir()) / f"kdiag-compute-sanitizer-{os.getuid()}.lock"


@contextlib.contextmanager
def sanitizer_turn(ctx: RunContext, rung: L.Rung) -> Iterator[None]:
    """Hold the machine's compute-sanitizer lock while a sanitizer rung runs (nothing for the other rungs).

    Two compute-sanitizer instances running at once on one machine can attach to each other's programs: on an
    H200, three kdiag runs side by side got another program's memcheck report in a Triton kernel's log, and two
    clean programs sat under memcheck until their time limit.  A batch of kdiag runs therefore takes turns on the
    sanitizer rungs (an OS lock: released when its holder exits, however it exits); the plain runs stay parallel.
    """
    if rung.tool is None:
        yield
        return
    try:
        fh = open(sanitizer_lock_path(), "a+")  # noqa: SIM115 (closed below, after the rung)
    except OSError as e:
        ctx.log.note(f"{rung.name}: ran without the machine's compute-sanitizer lock ({e.strerror or e})")
        yield
        return
    with fh:
        t0 = time.monotonic()
        fcntl.flock(fh, fcntl.LOCK_EX)
        waited = time.monotonic() - t0
        if waited >= 1.0:
            ctx.log.note(
                f"{rung.name}: waited {waited:.0f} s for another compute-sanitizer run on this machine to end "
                "(instances running at once can attach to each other's programs)"
            )
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def climb(ctx: RunContext, attempt: Attempt) -> tuple[Step, tuple[str, ...]]:
    """The last step, and the rungs that could not run here (and why)."""
    planner = L.Planner(ladder=ctx.opts.ladder, gpu=ctx.gpu, sanitizer=ctx.sanitizer)
    rung: L.Rung | None = planner.next(L.Symptoms())
    last: Step | None = None
    while rung is not None:
        folder = ctx.rd / "rungs" / f"{len(ctx.log.rungs) + 1}-{rung.name}"
        with sanitizer_turn(ctx, rung):
            step = attempt(rung, folder, (*(r.name for r in ctx.log.rungs), rung.name))
        diag = step.diag or ctx.matcher.diagnose(step.evidence)
        if planner.sweeping:
            # the plain run passed: only the sanitizer's own report (its error exit) overturns that
            found = step.outcome is not None and step.outcome.exit_code == L.SANITIZER_EXIT
            ctx.log.rung(rung, step.argv, rel(ctx, folder), step.outcome, step.verdict, diag, found)
            write_evidence(folder, step.evidence)
            if found:
                last = step
                break
            if step.verdict == "pass":
                last = step
            else:
                how = "ran past the time limit" if step.outcome and step.outcome.timed_out else "did not finish cleanly"
                planner.stop_sweep(
                    f"under {rung.name} the run {how} with no sanitizer report; the plain run's pass stands"
                )
            rung = planner.next(L.Symptoms())
            continue
        # a run stopped by the time limit is never explained by the plain rung alone: where it waits (a
        # barrier only some threads reach, a spin on a flag) is what the next rung (synccheck) tells; a
        # sanitizer run that timed out after reporting errors is explained by its report
        hung = step.outcome is not None and step.outcome.timed_out and rung.tool is None
        done = step.verdict == "pass" or (L.explained(diag, ctx.rules) and not hung)
        ctx.log.rung(rung, step.argv, rel(ctx, folder), step.outcome, step.verdict, diag, done)
        write_evidence(folder, step.evidence)
        last = step
        if step.verdict == "pass" and rung.name == "plain":
            rung = planner.next(L.Symptoms())  # the full ladder's sanitizer sweep, or nothing
            continue
        if done:
            break
        assert step.evidence.run is not None
        rung = planner.next(R.symptoms(step.outcome, step.evidence.run, step.evidence, step.verdict))
    assert last is not None
    return last, tuple(planner.unavailable)


def rel(ctx: RunContext, folder: Path) -> str:
    return str(folder.relative_to(ctx.rd))


def names(rungs: Sequence[Any]) -> tuple[str, ...]:
    return tuple(r.name for r in rungs)
