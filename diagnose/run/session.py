"""``kdiag run``: run one target under controlled conditions, climb the ladder, keep everything.

    target ─► [nvcc] ─► inputs child ─► kernel child (rung 1) ─► compare (here) ─► Evidence ─► matcher
                        (+ the reference)                                   ▲ rung 2, 3 ... only while unexplained

Every child is a :func:`diagnose.runner.run` attempt (own session and PID namespace, files for
output, a wall-clock limit).  The reference runs in the inputs child once the inputs are saved,
never in the kernel's process; later rungs re-run the kernel child only (same inputs, same expected outputs).
The run directory (``.kdiag/runs/<id>/``) holds every child's captured files, the inputs and
outputs, compile and sanitizer logs, ``env.json``, ``evidence.json`` and ``report.json``.

The parts, each with one job: :mod:`~diagnose.run.context` (the frozen context and the run's log),
:mod:`~diagnose.run.children` (every child), :mod:`~diagnose.run.climb` (the ladder loop),
:mod:`~diagnose.run.runfacts` and :mod:`~diagnose.run.assemble` (outcomes → facts → evidence), one
module per target kind (:mod:`~diagnose.run.target_kernel`, :mod:`~diagnose.run.target_command`),
:mod:`~diagnose.run.probe_run` (probes and shrinking after the declared run) and
:mod:`~diagnose.run.result` (what the renderers read).
"""

from __future__ import annotations

import dataclasses
import json
import time

from diagnose.run import output
from diagnose.run.context import make_context
from diagnose.run.probe_run import probe_verdict
from diagnose.run.result import KdiagError, Options, RunResult
from diagnose.run.target_command import nvcc_argv, run_command, run_cuda_file
from diagnose.run.target_kernel import KINDS as KERNEL_KINDS
from diagnose.run.target_kernel import run_kernel_target
from diagnose.run.targets import Target

__all__ = ["KERNEL_KINDS", "KdiagError", "Options", "RunResult", "execute", "nvcc_argv", "probe_verdict"]


def execute(target: Target, opts: Options) -> RunResult:
    """Run ``target`` and return the diagnosed result; everything is also written under the run dir."""
    t0 = time.monotonic()
    ctx = make_context(target, opts)
    if target.kind == "command":
        res = run_command(ctx, list(target.argv))
    elif target.kind == "cuda-file":
        res = run_cuda_file(ctx)
    elif target.kind in KERNEL_KINDS:
        res = run_kernel_target(ctx)
    else:
        raise KdiagError(f"unknown target kind {target.kind!r}")
    res = dataclasses.replace(res, took_s=time.monotonic() - t0)
    rungs = [r.to_dict() for r in res.rungs]
    (ctx.rd / "evidence.json").write_text(
        json.dumps({"evidence": res.evidence.to_dict(), "rungs": rungs}, indent=1, default=str)
    )
    (ctx.rd / "report.json").write_text(json.dumps(output.to_dict(res), indent=1, default=str))
    return res
