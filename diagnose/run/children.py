"""The children of a run: every attempt goes through :func:`attempt` (the runner, an Xid watch on a
GPU), and the kernel protocols' roles (inputs, kernel: ``python -m harness.<role>``) through
:func:`child`, for the ladder and the probes alike. The reference runs in the inputs child once the
inputs are saved (:func:`inputs_and_reference`): one torch import fewer per run, and still never in
the kernel's process."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from diagnose.run import arrays as A
from diagnose.run.context import RunContext, RunLog
from diagnose.run.result import KdiagError
from diagnose.run.sizes import MAX_INPUT_BYTES_CPU
from diagnose.runner import Outcome, RunRequest, child_env, run

#: a Triton target under the interpreter runs every program in Python (numpy per block): a problem
#: fitted to this (2 Mi float32 elements per run, probes included) takes seconds, not minutes
MAX_INPUT_BYTES_INTERPRETER = 8 * 2**20


def attempt(
    ctx: RunContext, folder: Path, argv: Sequence[str], overrides: Mapping[str, str], timeout: float | None = None
) -> Outcome:
    folder.mkdir(parents=True, exist_ok=True)
    changes = {**ctx.common, **overrides}
    env = child_env(ctx.base_env, changes, run_dir=ctx.rd, seed=ctx.opts.seed)
    req = RunRequest(
        argv=tuple(argv),
        cwd=Path.cwd(),
        env=env,
        stdout_path=folder / "stdout",
        stderr_path=folder / "stderr",
        timeout=timeout if timeout is not None else ctx.opts.timeout,
        env_overrides=dict(changes),
    )
    with xid_watch(ctx.gpu, ctx.rd, ctx.log):
        out = run(req)
    if out.runner_error and not out.started:
        raise KdiagError(f"the runner failed: {out.runner_error}")
    if out.spawn_error and argv[0] == sys.executable:
        raise KdiagError(f"cannot start a child python: {out.spawn_error}")
    return out


@contextlib.contextmanager
def xid_watch(gpu: bool, rd: Path, log: RunLog) -> Iterator[None]:
    """Watch NVML for Xid critical errors while an attempt runs (on a GPU, where the driver allows it).

    Events found go into the log's snapshot (``nvml.xid_events``) and the GPU facts rules see, so a
    hardware Xid during the run (79 fallen off the bus, 48/94/95 ECC) is weighed with the failure.
    """
    if not gpu or log.snapshot is None:
        yield
        return
    try:
        from diagnose.envinfo import nvml as N

        source = N.LiveNvml()
        source.init()
    except Exception as e:  # no NVML: nothing to watch, and the snapshot already says why
        log.note(f"Xid watch: not started ({type(e).__name__}: {e})")
        yield
        return
    watch = N.XidWatch(source)
    try:
        with watch:
            yield
    finally:
        if watch.error is not None:
            log.note(f"Xid watch: the driver does not allow it ({watch.error})")
        if watch.events:
            log.xid_events(list(watch.events), rd)
        with contextlib.suppress(Exception):
            source.shutdown()


def spec(ctx: RunContext, path: Path, **fields: Any) -> Path:
    """The spec.json a harness child reads: the target, the device, the seed, where to read and write."""
    t = ctx.target
    data = {
        "kind": t.kind,
        "submission": str(t.path.resolve()) if t.path else None,
        "reference": str(t.reference.resolve()) if t.reference else None,
        "device": ctx.device,
        "seed": ctx.opts.seed,
        "sizes": [dict(s) for s in t.sizes] if t.sizes else None,
        "inputs_dir": str(ctx.rd / "inputs"),
        "target_gpu": ctx.target_gpu,
        "uses_triton": t.uses_triton,
        "files": [list(f) for f in t.files] or None,
        # no GPU: a Triton (or plain PyTorch) target's CUDA habits (assert x.is_cuda, .cuda(), device="cuda") on the CPU
        "emulate_cuda": not ctx.gpu and (t.uses_triton or t.pure_torch or ctx.stub_extensions),
        "size_overrides": dict(ctx.opts.sizes or {}),
        "max_input_bytes": None
        if ctx.gpu
        else (ctx.input_budget or (MAX_INPUT_BYTES_INTERPRETER if t.uses_triton else MAX_INPUT_BYTES_CPU)),
        "keep_sample_shape": ctx.keep_sample_shape,
        # a second run on fresh copies: races on a GPU; on CPU (the interpreter is sequential) state a
        # kernel carries from call to call (a cached buffer never cleared), when probes are wanted
        "repeat": 2 if ctx.gpu or ctx.opts.probes != "none" else 1,
        "stub_extensions": ctx.stub_extensions,
        "extension_stand_ins": ctx.extension_stand_ins,
        **fields,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
    return path


def child(
    ctx: RunContext, role: str, folder: Path, *, env: Mapping[str, str] | None = None,
    wrap: Sequence[str] = (), timeout: float | None = None, **fields: Any,
) -> tuple[list[str], Outcome]:  # fmt: skip
    """Run ``python -m harness.<role>`` with its spec in ``folder`` (``wrap``: a sanitizer in front)."""
    path = spec(ctx, folder / "spec.json", **fields)
    argv = [*wrap, sys.executable, "-P", "-m", f"harness.{role}", str(path)]
    return argv, attempt(ctx, folder, argv, env or {}, timeout=timeout)


def inputs_and_reference(
    ctx: RunContext, folder: Path, reference_out: Path, *, timeout: float | None = None, **fields: Any
) -> Outcome:
    """The inputs child, asked to run the reference into ``reference_out`` once the inputs are saved; its time
    limit covers both (twice one child's)."""
    limit = timeout if timeout is not None else ctx.opts.timeout
    for stale in (Path(str(fields.get("out_dir", ctx.rd / "inputs"))), reference_out):  # an earlier try's
        (stale / "manifest.json").unlink(missing_ok=True)
    return child(ctx, "inputs", folder, timeout=None if limit is None else 2 * limit,
                 reference_out=str(reference_out), **fields)[1]  # fmt: skip


def reference_manifest(
    ctx: RunContext, folder: Path, inputs: Mapping[str, Any], outcome: Outcome, what: str = "reference manifest"
) -> dict[str, Any]:
    """The reference's manifest in ``folder``, every size of the inputs manifest in it: a size it did not reach (the
    child died or ran out of time in the reference) has an error saying so."""
    got = read_json(ctx, folder / "manifest.json", what) or {}
    if got.get("done"):
        return got
    how = ("ran out of time" if outcome.timed_out else f"died ({outcome.signal})" if outcome.signal
           else f"exited {outcome.exit_code}")  # fmt: skip
    seen = {str(r.get("label")) for r in got.get("sizes", []) if isinstance(r, Mapping)}
    lost = [
        {"label": s.get("label"), "error": f"the reference did not reach this size: its child {how}"}
        for s in inputs.get("sizes", [])
        if isinstance(s, Mapping) and str(s.get("label")) not in seen
    ]
    return {**got, "sizes": [*got.get("sizes", []), *lost]}


def read_json(ctx: RunContext, path: Path, what: str) -> dict[str, Any] | None:
    try:
        return A.read_json(path)
    except A.ResultInvalid as e:
        ctx.log.note(f"{what}: {e}")
        return None


def text(outcome: Outcome, *extra: tuple[str, str]) -> str:
    """What the collectors read: extra sections (a compile log), stderr, stdout, then the rest."""
    parts = [body for name, body in extra if name == "compile" and body]
    parts.append(outcome.stderr.read_text())
    parts.append(outcome.stdout.read_text())
    parts += [body for name, body in extra if name != "compile" and body]
    return "\n".join(p.rstrip("\n") for p in parts if p) + "\n"


def harness_broken(outcome: Outcome) -> bool:
    err = outcome.stderr.read_text()
    return "No module named 'harness" in err or "No module named harness" in err
