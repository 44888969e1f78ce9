"""What ``kdiag run`` returns: the options it ran with, one record per rung, and the frozen result.

The renderers (:mod:`diagnose.run.output`) and the run path both import this module; it imports
neither of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose.evidence import Evidence
from diagnose.matcher import Diagnosis
from diagnose.rules import RuleSet
from diagnose.run.compare import SizeResult
from diagnose.run.probes import Matrix
from diagnose.run.targets import Target

#: exit codes of ``kdiag run`` by verdict (``no-result``: it could not run here; never a failure of the kernel)
EXIT_CODES = {"pass": 0, "fail": 1, "assumption": 1, "no-result": 4}


class KdiagError(RuntimeError):
    """kdiag's own machinery failed (exit 3), as opposed to the target failing (exit 1)."""


@dataclass(frozen=True)
class Options:
    ladder: str = "quick"  # none | quick | full
    timeout: float | None = 300.0  # wall clock per attempt, seconds
    target_gpu: str | None = None  # default: the GPU present, else H100
    arch: str | None = None  # .cu: sm_XX to compile for
    runs_dir: Path = Path(".kdiag/runs")
    seed: int = 0
    rules: RuleSet | Callable[[], RuleSet] | None = None  # a loader runs beside the first child
    base_env: Mapping[str, str] | None = None  # default os.environ
    gpu: bool | None = None  # None: ask NVML; False: behave as if there were no GPU
    probes: str = "quick"  # none | quick | full: inputs outside the declared contract (diagnose/run/probes.py)
    shrink: bool = False  # find the smallest failing size and the rule it follows (diagnose/run/shrink.py)
    atol: float | None = None  # kdiag run --atol/--rtol: over the target's TOLERANCE, for every float dtype
    rtol: float | None = None
    sizes: Mapping[str, int | float] | None = None  # --size NAME=VALUE (diagnose/run/sizes.py, harness/sizes.py)


@dataclass(frozen=True)
class RungRecord:
    n: int
    name: str
    why: str
    changed: Mapping[str, str]  # environment against the plain rung, and the wrapper
    argv: tuple[str, ...]
    dir: str
    exit_code: int | None
    signal: str | None
    timed_out: bool
    duration_s: float
    verdict: str
    category: str | None
    failure_mode: str | None
    rule: str | None
    confidence: float | None
    explained: bool
    max_rss_kib: int | None = None
    cpu_s: float | None = None  # user + system, the target and everything reaped below it
    output_bytes: tuple[int, int] = (0, 0)  # stdout, stderr: everything written (the files keep head and tail)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["changed"] = dict(self.changed)
        d["argv"] = list(self.argv)
        d["duration_s"] = round(self.duration_s, 3)
        d["cpu_s"] = None if self.cpu_s is None else round(self.cpu_s, 3)
        d["output_bytes"] = list(self.output_bytes)
        return d


@dataclass(frozen=True)
class RunResult:
    verdict: str  # pass | fail | assumption | no-result
    diagnosis: Diagnosis | None
    evidence: Evidence
    target: Target
    run_id: str
    run_dir: Path
    rungs: tuple[RungRecord, ...]
    sizes: tuple[SizeResult, ...] = ()
    notes: tuple[str, ...] = ()
    took_s: float = 0.0
    probes: Matrix | None = None
    shrunk: Any = None  # diagnose.run.shrink.Shrunk, when --shrink ran
    checked: tuple[str, ...] = ()  # what was checked without running (compile: "compiles for sm_90 ...")
    cannot_run: str | None = None  # no-result: why it could not run here (diagnose/run/no_result.py)
    cannot_run_mode: str | None = None  # the environment failure mode that says so: no-gpu-visible ...

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.verdict, 1)
