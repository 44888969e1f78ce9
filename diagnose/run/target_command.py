"""Target kinds ``command`` (``kdiag run -- CMD ...``) and ``cuda-file`` (a ``.cu``: nvcc, then the binary
as a command): each rung runs the command, the collectors read what it printed."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from diagnose.run import assemble as A
from diagnose.run import children as K
from diagnose.run import compile_check as CC
from diagnose.run import ladder as L
from diagnose.run import no_result as NR
from diagnose.run import runfacts as R
from diagnose.run.climb import Step, climb, names, rel, sanitizer_log, wrapper
from diagnose.run.context import RunContext
from diagnose.run.result import RunResult


def run_command(ctx: RunContext, argv: list[str], compile_log: str = "", **facts_kw: Any) -> RunResult:
    def attempt(rung: L.Rung, folder: Path, rungs: tuple[str, ...]) -> Step:
        full = [*wrapper(ctx, rung, folder), *argv]
        outcome = K.attempt(ctx, folder, full, rung.env)
        text = K.text(outcome, ("compile", compile_log), ("sanitizer", sanitizer_log(folder)))
        ev = A.evidence(ctx, text, outcome, R.base_facts(ctx, rungs=rungs, **facts_kw))
        diag = ctx.matcher.diagnose(ev)
        return Step(outcome, ev, R.command_verdict(outcome, diag), tuple(full), diag=diag)

    step, unavailable = climb(ctx, attempt)
    ev = A.with_run(step.evidence, rungs=names(ctx.log.rungs), rungs_unavailable=unavailable)
    diag = ctx.matcher.diagnose(ev)
    assert step.outcome is not None
    res = ctx.finish(R.command_verdict(step.outcome, diag), diag, ev)
    return NR.as_no_result(res, ctx.log.snapshot, gpu=ctx.gpu)


def nvcc_argv(nvcc: str, source: Path, binary: Path, arch: str) -> list[str]:
    """nvcc with ptxas's resource report and line info; ``sm_90a``-style archs get a -gencode."""
    a = arch.removeprefix("sm_").removeprefix("compute_")
    flags = ["-gencode", f"arch=compute_{a},code=sm_{a}"] if a.endswith(("a", "f")) else [f"-arch=sm_{a}"]
    return [nvcc, "-Xptxas", "-v", "-lineinfo", *flags, "-o", str(binary), str(source)]


def run_cuda_file(ctx: RunContext) -> RunResult:
    t = ctx.target
    assert t.path is not None
    gpu_arch = ctx.gpu_facts.arch if ctx.gpu and ctx.gpu_facts and ctx.gpu_facts.arch else None
    arch = ctx.opts.arch or gpu_arch or ctx.target_arch or "sm_90"
    build = ctx.rd / "build"
    build.mkdir(exist_ok=True)
    compile_rung = L.Rung("compile", f"nvcc for {arch} with -Xptxas -v -lineinfo", env={})
    folder = ctx.rd / "rungs" / "1-compile"
    nvcc = CC.find_nvcc(ctx.base_env)

    def stop(text: str, outcome: Any, argv: list[str], verdict: str, note: str = "", **kw: Any) -> RunResult:
        facts = dataclasses.replace(R.base_facts(ctx, rungs=("compile",), **kw), target_arch=arch)
        ev = A.evidence(ctx, text, None, facts)
        diag = ctx.matcher.diagnose(ev)
        ctx.log.rung(compile_rung, argv, rel(ctx, folder), outcome, verdict, diag, True)
        if note:
            ctx.log.note(note)
        return ctx.finish(verdict, diag, ev)

    if nvcc is None:
        text = "kdiag: nvcc not found (PATH, CUDA_HOME, /usr/local/cuda, the nvidia-cuda-nvcc wheel)\n"
        return stop(text, None, [], "fail", rungs_unavailable=("compile: nvcc not found",))
    argv = nvcc_argv(nvcc, t.path.resolve(), build / t.path.stem, arch)
    outcome = K.attempt(ctx, folder, argv, {})
    log = outcome.stdout.read_text() + outcome.stderr.read_text()
    (ctx.rd / "compile.log").write_text(log)
    if outcome.exit_code != 0 or not (build / t.path.stem).is_file():
        return stop(log, outcome, argv, "fail")
    if not ctx.gpu:
        note = f"compiled for {arch}; running the binary needs a GPU"
        res = stop(log, outcome, argv, "no-result", note, compiled=True, rungs_unavailable=("run: no GPU",))
        regs, spilled, shared = CC.figures(log)
        checked = f"compiles for {arch}: {regs if regs is not None else '?'} registers, {spilled} bytes spilled, {shared} bytes shared memory"
        return dataclasses.replace(
            res, checked=(checked,), cannot_run=NR.explain(ctx.log.snapshot, gpu=False),
            cannot_run_mode=NR.mode(ctx.log.snapshot, gpu=False),
        )  # fmt: skip
    diag = ctx.matcher.diagnose(A.evidence(ctx, log, None, R.base_facts(ctx, rungs=("compile",), compiled=True)))
    ctx.log.rung(compile_rung, argv, rel(ctx, folder), outcome, "pass", diag, False)
    return run_command(ctx, [str(build / t.path.stem)], compile_log=log, compiled=True)
