"""The escalation ladder: which rung runs next, and whether the last one explained the failure.

    plain → launch-blocking (CUDA_LAUNCH_BLOCKING=1, PYTORCH_NO_CUDA_MEMORY_CACHING=1)
          → compute-sanitizer: memcheck on an error, racecheck when identical runs disagreed,
            initcheck when the output looks unwritten, synccheck on a hang

A rung runs only while the failure is unexplained: no finding at or above
:data:`EXPLAIN_CONFIDENCE` whose rule rests on a *decisive* source (the run's own checks, a
compiler or sanitizer report, ...; an error text alone is not decisive: launch-blocking and the
sanitizer exist to pin it).  ``--ladder none`` runs the plain rung only, ``quick`` at most one
sanitizer tool, ``full`` every tool that applies.  A rung that cannot run here says why.

``full`` also *sweeps* a run that passed: an out-of-bounds write into padding, a shared-memory race
that happened to resolve in order or a read of memory nobody wrote crash nothing and can still
compare equal, so on a GPU every sanitizer tool runs over it (launches synchronous, no caching
allocator) and only a report from the sanitizer itself (its error exit) overturns the pass.  Once a
sanitizer run has gone past the time limit on a run that hung, the tools left are not tried: each
slows the kernel down and would time out as well.

>>> p = Planner(ladder="quick", gpu=False, sanitizer=None)
>>> p.next(Symptoms(failed=True, error=True)).name
'plain'
>>> p.next(Symptoms(failed=True, error=True)) is None, p.unavailable
(True, ['launch-blocking: no GPU', 'memcheck: no GPU'])
>>> g = Planner(ladder="full", gpu=True, sanitizer="/opt/cs/compute-sanitizer")
>>> [g.next(Symptoms(failed=True, timed_out=True)).name for _ in range(3)]
['plain', 'launch-blocking', 'synccheck']
>>> g.next(Symptoms(failed=True, timed_out=True)) is None, g.unavailable
(True, ['memcheck: skipped (synccheck also ran past the time limit)', 'racecheck: skipped (synccheck also ran past the time limit)', 'initcheck: skipped (synccheck also ran past the time limit)'])
>>> s = Planner(ladder="full", gpu=True, sanitizer="/opt/cs/compute-sanitizer")
>>> [s.next(Symptoms()).name for _ in range(5)], s.sweeping
(['plain', 'memcheck', 'racecheck', 'initcheck', 'synccheck'], True)
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from diagnose.matcher import Diagnosis
from diagnose.rules import RuleSet

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
SANITIZER_EXIT = 86  # --error-exitcode: tells "the sanitizer found something" from the target's own exit
EXPLAIN_CONFIDENCE = 0.6
#: sources whose facts settle a diagnosis; the others (an error text, a traceback, an exit status)
#: say *that* something failed more than *why*
DECISIVE = frozenset({"run", "compiler", "sanitizer", "triton", "numerics", "oom", "env", "gpu"})
MIN_SANITIZER_WHEEL = (13, 5, 25)  # 13.0.85 lacks a helper and cannot run targets (TOOLCHAIN.md)

LAUNCH_BLOCKING_ENV: Mapping[str, str] = {
    # every launch synchronous: the error is reported at the launch that caused it
    "CUDA_LAUNCH_BLOCKING": "1",
    # no caching allocator: an out-of-bounds access past a tensor lands outside any allocation,
    # where the driver (and memcheck) can see it, instead of inside a pooled block
    "PYTORCH_NO_CUDA_MEMORY_CACHING": "1",
}


@dataclass(frozen=True)
class Symptoms:
    failed: bool = False
    error: bool = False  # an exception, a CUDA error, a crash, a non-zero exit
    timed_out: bool = False
    unwritten: bool = False
    nondeterministic: bool = False


@dataclass(frozen=True)
class Rung:
    name: str
    why: str
    env: Mapping[str, str] = field(default_factory=dict)  # what it changes against the plain rung
    tool: str | None = None  # compute-sanitizer tool


def tools_for(s: Symptoms) -> list[str]:
    """Sanitizer tools in the order the symptoms point to them."""
    first = []
    if s.timed_out:
        first.append("synccheck")
    if s.nondeterministic:
        first.append("racecheck")
    if s.unwritten:
        first.append("initcheck")
    if s.error or not first:
        first.append("memcheck")
    return first + [t for t in TOOLS if t not in first]


def _why(tool: str) -> str:
    return {
        "synccheck": "the run hung: look for a barrier not every thread reaches",
        "racecheck": "identical runs disagreed: look for a shared-memory race",
        "initcheck": "the output looks unwritten: look for reads of uninitialised memory",
        "memcheck": "an error without a decisive cause: look for the out-of-bounds or misaligned access",
    }[tool]


_SWEEP_WHY = {
    "memcheck": "an out-of-bounds access that lands in padding or another allocation crashes nothing",
    "racecheck": "a shared-memory race can resolve in order on one run",
    "initcheck": "a read of memory nobody wrote can happen to hold the right values",
    "synccheck": "a barrier only some threads reach does not always hang",
}


@dataclass
class Planner:
    ladder: str  # none | quick | full
    gpu: bool
    sanitizer: str | None
    done: list[str] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    sweeping: bool = False  # the plain run passed and the full ladder is checking it under the sanitizer

    def _unavailable(self, name: str, why: str) -> None:
        line = f"{name}: {why}"
        if line not in self.unavailable:
            self.unavailable.append(line)

    def next(self, s: Symptoms) -> Rung | None:
        """The next rung to run, or None (and ``unavailable`` says what could not run)."""
        if not self.done:
            return self._take(Rung("plain", "the first attempt, nothing changed"))
        if self.ladder == "none":
            return None
        if not s.failed:
            return self._sweep()
        if s.timed_out and self.done[-1] in TOOLS:
            for tool in TOOLS:
                if tool not in self.done:
                    self._unavailable(tool, f"skipped ({self.done[-1]} also ran past the time limit)")
            return None
        if "launch-blocking" not in self.done:
            if self.gpu:
                return self._take(
                    Rung(
                        "launch-blocking",
                        "the plain run did not explain the failure: make launches synchronous to pin the failing one",
                        env=dict(LAUNCH_BLOCKING_ENV),
                    )
                )
            self._unavailable("launch-blocking", "no GPU")
            self.done.append("launch-blocking")
        wanted = tools_for(s)
        if self.ladder == "quick":
            wanted = wanted[:1]
        for tool in wanted:
            if tool in self.done:
                continue
            self.done.append(tool)
            if not self.gpu:
                self._unavailable(tool, "no GPU")
                continue
            if self.sanitizer is None:
                self._unavailable(tool, "compute-sanitizer not found (PATH, or nvidia-cuda-sanitizer-api >= 13.5.25)")
                continue
            return Rung(tool, _why(tool), env=dict(LAUNCH_BLOCKING_ENV), tool=tool)
        return None

    def _sweep(self) -> Rung | None:
        """The next sanitizer tool over a run that passed (the full ladder on a GPU only)."""
        if self.ladder != "full" or not self.gpu or self.sanitizer is None:
            return None
        if not self.sweeping:
            self.sweeping = True
            self.done.append("launch-blocking")  # every sanitizer rung runs with its settings
        tool = next((t for t in TOOLS if t not in self.done), None)
        if tool is None:
            return None
        self.done.append(tool)
        why = f"the run passed: the full ladder checks it under {tool} too ({_SWEEP_WHY[tool]})"
        return Rung(tool, why, env=dict(LAUNCH_BLOCKING_ENV), tool=tool)

    def stop_sweep(self, why: str) -> None:
        """No more sanitizer tools over the passing run (the last one could not finish)."""
        for tool in TOOLS:
            if tool not in self.done:
                self.done.append(tool)
                self._unavailable(tool, f"skipped ({why})")

    def _take(self, rung: Rung) -> Rung:
        self.done.append(rung.name)
        return rung


def sanitizer_argv(exe: str, tool: str, log_file: str) -> list[str]:
    argv = [exe, "--tool", tool, "--error-exitcode", str(SANITIZER_EXIT), "--log-file", log_file, "--print-limit", "64"]
    if tool == "racecheck":
        argv += ["--racecheck-report", "all"]
    return argv


def explained(diagnosis: Diagnosis, rules: RuleSet) -> bool:
    best = diagnosis.best
    if best is None or diagnosis.abstained or diagnosis.confidence < EXPLAIN_CONFIDENCE:
        return False
    rule = rules.get(best.rule)
    return rule is not None and bool(set(rule.requires) & DECISIVE)


def _version(text: str | None) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text or "")[:3])


def find_sanitizer(snapshot: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    """(path of a usable compute-sanitizer, why there is none)."""
    field_ = ((snapshot or {}).get("software") or {}).get("compute_sanitizer") or {}
    value = field_.get("value") if isinstance(field_, Mapping) else None
    if isinstance(value, Mapping) and value.get("path"):
        wheel = value.get("wheel")
        if wheel and _version(str(wheel)) < MIN_SANITIZER_WHEEL:
            return None, f"nvidia-cuda-sanitizer-api {wheel} is older than 13.5.25 (it lacks a helper it needs)"
        return str(value["path"]), None
    hit = shutil.which("compute-sanitizer")
    if hit:
        return hit, None
    return None, str(field_.get("error") or "compute-sanitizer not found") if isinstance(field_, Mapping) else None
