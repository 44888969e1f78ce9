"""``kdiag run``: run one target under controlled conditions, climb the ladder, keep everything.

    target ─► [nvcc] ─► inputs child ─► kernel child (rung 1) ─┬─► compare (here) ─► Evidence ─► matcher
                                      └► reference child ──────┘        ▲ rung 2, 3 ... only while unexplained

Every child is a :func:`diagnose.runner.run` attempt (own session and PID namespace, files for
output, a wall-clock limit).  The reference child runs beside the first kernel attempt, in a
process of its own; later rungs re-run the kernel child only (same inputs, same expected outputs).
The run directory (``.kdiag/runs/<id>/``) holds every child's captured files, the inputs and
outputs, compile and sanitizer logs, ``env.json``, ``evidence.json`` and ``report.json``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose import facts as F
from diagnose.collectors import collect
from diagnose.evidence import SOURCES, Evidence
from diagnose.matcher import Diagnosis, Matcher
from diagnose.rules import RuleSet, default_rules
from diagnose.run import arrays as A
from diagnose.run import compare as C
from diagnose.run import ladder as L
from diagnose.run import probes as P
from diagnose.run.targets import Target
from diagnose.runner import Outcome, RunRequest, child_env, ensure_child_dirs, run

ROOT = Path(__file__).resolve().parent.parent.parent  # the folder that holds diagnose/ and harness/
KERNEL_KINDS = ("kernel-module", "kernelbench", "gpumode")
DEFAULT_TARGET_GPU = "H100"


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
    sizes: tuple[C.SizeResult, ...] = ()
    notes: tuple[str, ...] = ()
    took_s: float = 0.0
    probes: P.Matrix | None = None
    shrunk: Any = None  # diagnose.run.shrink.Shrunk, when --shrink ran

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == "pass" else 1


@dataclass
class _Ctx:
    target: Target
    opts: Options
    rules_source: _Background
    run_id: str
    rd: Path
    base_env: Mapping[str, str]
    gpu: bool
    gpu_facts: F.GpuFacts | None
    snapshot: dict[str, Any] | None
    target_gpu: str
    target_arch: str | None
    sanitizer: str | None
    common: dict[str, str] = field(default_factory=dict)  # overrides every child gets
    notes: list[str] = field(default_factory=list)
    rungs: list[RungRecord] = field(default_factory=list)
    _matcher: Matcher | None = None

    @property
    def device(self) -> str:
        return "cuda" if self.gpu else "cpu"

    @property
    def rules(self) -> RuleSet:
        return self.rules_source.get()

    @property
    def matcher(self) -> Matcher:
        if self._matcher is None:
            self._matcher = Matcher(self.rules)
        return self._matcher


class _Background:
    """A value computed in a thread: compiling the rule base (~0.8 s) overlaps the first child."""

    def __init__(self, fn: Callable[[], RuleSet]) -> None:
        self._value: RuleSet | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), name="kdiag-rules", daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], RuleSet]) -> None:
        try:
            self._value = fn()
        except BaseException as e:  # raised where the value is needed
            self._error = e

    def get(self) -> RuleSet:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


# --- set-up ------------------------------------------------------------------------------------


def make_run_dir(root: Path) -> tuple[str, Path]:
    rid = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    path = root / rid
    path.mkdir(parents=True, exist_ok=False)
    return rid, path.resolve()


def _environment(env: Mapping[str, str], rd: Path, notes: list[str]) -> tuple[dict[str, Any] | None, F.GpuFacts | None]:
    """The envinfo snapshot (NVML, stack); written to env.json."""
    from diagnose.envinfo import snapshot as S

    try:
        snap = S.snapshot(env=env)
        (rd / "env.json").write_text(json.dumps(snap, indent=1, default=str))
        return snap, S.gpu_facts(snap)
    except Exception as e:  # the snapshot is evidence, not a precondition
        notes.append(f"environment snapshot failed: {type(e).__name__}: {e}")
        return None, None


def _arch_of(name: str | None) -> str | None:
    if not name:
        return None
    from diagnose.envinfo import gpuspec

    spec = gpuspec.try_lookup(name)
    return spec.arch if spec else None


def _context(target: Target, opts: Options) -> _Ctx:
    given = opts.rules
    rules = _Background((lambda: given) if isinstance(given, RuleSet) else (given or default_rules))
    rid, rd = make_run_dir(opts.runs_dir)
    base = dict(opts.base_env if opts.base_env is not None else os.environ)
    notes: list[str] = []
    probe_env = child_env(base, {}, run_dir=rd)  # what the children will see (CUDA_VISIBLE_DEVICES pinned)
    snap, gpu_facts = _environment(probe_env, rd, notes)
    gpu = bool(gpu_facts and gpu_facts.nvml_ok and gpu_facts.name) if opts.gpu is None else opts.gpu
    target_gpu = opts.target_gpu or (gpu_facts.name if gpu and gpu_facts and gpu_facts.name else DEFAULT_TARGET_GPU)
    sanitizer, why = L.find_sanitizer(snap)
    if sanitizer is None and why and gpu:
        notes.append(f"compute-sanitizer: {why}")
    common = {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), base.get("PYTHONPATH", "")) if p)}
    if not gpu:
        # no GPU: Triton kernels run in Triton's interpreter on CPU tensors
        common["TRITON_INTERPRET"] = "1"
    ensure_child_dirs(rd)
    return _Ctx(
        target=target,
        opts=opts,
        rules_source=rules,
        run_id=rid,
        rd=rd,
        base_env=base,
        gpu=gpu,
        gpu_facts=gpu_facts,
        snapshot=snap,
        target_gpu=target_gpu,
        target_arch=_arch_of(target_gpu),
        sanitizer=sanitizer,
        common=common,
        notes=notes,
    )


# --- attempts ----------------------------------------------------------------------------------


def _attempt(
    ctx: _Ctx, folder: Path, argv: list[str], overrides: Mapping[str, str], timeout: float | None = None
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
    with _xid_watch(ctx):
        out = run(req)
    if out.runner_error and not out.started:
        raise KdiagError(f"the runner failed: {out.runner_error}")
    if out.spawn_error and argv[0] == sys.executable:
        raise KdiagError(f"cannot start a child python: {out.spawn_error}")
    return out


@contextlib.contextmanager
def _xid_watch(ctx: _Ctx) -> Iterator[None]:
    """Watch NVML for Xid critical errors while an attempt runs (on a GPU, where the driver allows it).

    Events found go into the snapshot's ``nvml.xid_events`` and the GPU facts rules see, so a hardware
    Xid during the run (79 fallen off the bus, 48/94/95 ECC) is weighed with the failure.
    """
    if not ctx.gpu or ctx.snapshot is None:
        yield
        return
    try:
        from diagnose.envinfo import nvml as N
        from diagnose.envinfo import snapshot as S

        source = N.LiveNvml()
        source.init()
    except Exception as e:  # no NVML: nothing to watch, and the snapshot already says why
        ctx.notes.append(f"Xid watch: not started ({type(e).__name__}: {e})")
        yield
        return
    watch = N.XidWatch(source)
    try:
        with watch:
            yield
    finally:
        if watch.error is not None:
            ctx.notes.append(f"Xid watch: the driver does not allow it ({watch.error})")
        if watch.events:
            nv = ctx.snapshot.setdefault("nvml", {})
            nv.setdefault("xid_events", []).extend({"device": d, "xid": x} for d, x in watch.events)
            ctx.gpu_facts = S.gpu_facts(ctx.snapshot)
            (ctx.rd / "env.json").write_text(json.dumps(ctx.snapshot, indent=1, default=str))
        with contextlib.suppress(Exception):
            source.shutdown()


def _text(outcome: Outcome, *extra: tuple[str, str]) -> str:
    """What the collectors read: extra sections (a compile log), stderr, stdout, then the rest."""
    parts = [body for name, body in extra if name == "compile" and body]
    parts.append(outcome.stderr.read_text())
    parts.append(outcome.stdout.read_text())
    parts += [body for name, body in extra if name != "compile" and body]
    return "\n".join(p.rstrip("\n") for p in parts if p) + "\n"


def _harness_broken(outcome: Outcome) -> bool:
    err = outcome.stderr.read_text()
    return "No module named 'harness" in err or "No module named harness" in err


def _spec(ctx: _Ctx, path: Path, **fields: Any) -> Path:
    t = ctx.target
    spec = {
        "kind": t.kind,
        "submission": str(t.path.resolve()) if t.path else None,
        "reference": str(t.reference.resolve()) if t.reference else None,
        "device": ctx.device,
        "seed": ctx.opts.seed,
        "sizes": [dict(s) for s in t.sizes] if t.sizes else None,
        "inputs_dir": str(ctx.rd / "inputs"),
        "target_gpu": ctx.target_gpu,
        "uses_triton": t.uses_triton,
        # a second run on fresh copies: races on a GPU; on CPU (the interpreter is sequential) state a
        # kernel carries from call to call (a cached buffer never cleared), when probes are wanted
        "repeat": 2 if ctx.gpu or ctx.opts.probes != "none" else 1,
        **fields,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(spec, indent=1))
    return path


# --- evidence ----------------------------------------------------------------------------------


def _merge_facts(existing: F.Facts | None, new: Any, key: str) -> F.Facts | None:
    """Fill what ``existing`` left at its defaults from ``new`` (a Facts or its dict form)."""
    if new is None:
        return existing
    if not isinstance(new, F.Facts):
        new = getattr(Evidence.from_dict({key: new}), key)
    if existing is None:
        return new
    blank = type(existing)()
    changes = {
        f.name: getattr(new, f.name)
        for f in dataclasses.fields(existing)
        if f.name != "lines" and getattr(existing, f.name) == getattr(blank, f.name)
    }
    return dataclasses.replace(existing, **changes)


def _triton_checks(folder: Path, notes: list[str]) -> tuple[dict[str, Any], str]:
    """RunFacts fields and collector texts from the Triton launch hooks' ``triton_checks.json``.

    The texts (compile errors as Triton printed them, ptxas ``-v`` logs of the target compiles)
    go through the collectors with the rest of the attempt's output.
    """
    path = folder / "triton_checks.json"
    if not path.is_file():
        return {}, ""
    from diagnose.run import triton_evidence

    try:
        got = triton_evidence.read(path)
    except Exception as e:
        notes.append(f"triton checks could not be read: {type(e).__name__}: {e}")
        return {}, ""

    def strings(key: str) -> list[str]:
        value = got.get(key)
        return [t for t in value if isinstance(t, str)] if isinstance(value, tuple | list) else []

    texts = strings("compile_errors") + strings("ptxas_logs")
    notes.extend(f"triton checks: {n}" for n in strings("notes") if f"triton checks: {n}" not in notes)
    return {"run": triton_evidence.run_fields(got)}, "\n".join(texts)


def _apply_extra(ev: Evidence, run_facts: F.RunFacts, extra: Mapping[str, Any]) -> tuple[Evidence, F.RunFacts]:
    for key, value in extra.items():
        if key == "run":
            data = dataclasses.asdict(value) if isinstance(value, F.RunFacts) else dict(value or {})
            known = {f.name for f in dataclasses.fields(F.RunFacts)} - {"lines"}
            chosen = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in known}
            blank = F.RunFacts()
            changes: dict[str, Any] = {k: v for k, v in chosen.items() if v != getattr(blank, k)}
            run_facts = dataclasses.replace(run_facts, **changes)
        elif key in SOURCES and key != "log":
            ev = ev.replace(**{key: _merge_facts(getattr(ev, key), value, key)})
    return ev, run_facts


def _evidence(
    ctx: _Ctx,
    text: str,
    outcome: Outcome | None,
    run_facts: F.RunFacts,
    numerics: F.NumericsFacts | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Evidence:
    errors: list[str] = []
    ev = collect(
        text,
        id=ctx.run_id,
        exit_code=outcome.exit_code if outcome else None,
        signal=outcome.signal if outcome else None,
        timed_out=outcome.timed_out if outcome else False,
        origin="run",
        errors=errors,
    )
    ctx.notes.extend(e for e in errors if e not in ctx.notes)
    ev, run_facts = _apply_extra(ev, run_facts, extra or {})
    changes: dict[str, Any] = {"run": run_facts}
    if numerics is not None:
        changes["numerics"] = numerics
    if ctx.gpu_facts is not None:
        changes["gpu"] = ctx.gpu_facts
    return ev.replace(**changes)


def _base_facts(ctx: _Ctx, **kw: Any) -> F.RunFacts:
    return F.RunFacts(
        target=ctx.target.kind,
        gpu_present=ctx.gpu,
        device=ctx.device,
        interpreter=ctx.target.uses_triton and not ctx.gpu,
        target_gpu=ctx.target_gpu,
        target_arch=ctx.target_arch,
        **kw,
    )


def _record(
    ctx: _Ctx,
    rung: L.Rung,
    argv: list[str],
    folder: Path,
    outcome: Outcome | None,
    verdict: str,
    diag: Diagnosis,
    explained: bool,
) -> None:
    changed = dict(rung.env)
    if rung.tool:
        changed["wrapper"] = f"compute-sanitizer --tool {rung.tool}"
    ctx.rungs.append(
        RungRecord(
            n=len(ctx.rungs) + 1,
            name=rung.name,
            why=rung.why,
            changed=changed,
            argv=tuple(argv),
            dir=str(folder.relative_to(ctx.rd)),
            exit_code=outcome.exit_code if outcome else None,
            signal=outcome.signal if outcome else None,
            timed_out=outcome.timed_out if outcome else False,
            duration_s=outcome.duration_s if outcome else 0.0,
            verdict=verdict,
            category=None if verdict == "pass" else diag.category,
            failure_mode=None if verdict == "pass" else diag.failure_mode,
            rule=diag.rule,
            confidence=diag.confidence,
            explained=explained,
            max_rss_kib=outcome.max_rss_kib if outcome else None,
            cpu_s=(outcome.user_cpu_s or 0.0) + (outcome.system_cpu_s or 0.0) if outcome else None,
            output_bytes=(outcome.stdout.total_bytes, outcome.stderr.total_bytes) if outcome else (0, 0),
        )
    )


def _rung_argv(ctx: _Ctx, rung: L.Rung, folder: Path, argv: list[str]) -> list[str]:
    if rung.tool and ctx.sanitizer:
        return [*L.sanitizer_argv(ctx.sanitizer, rung.tool, str(folder / "sanitizer.log")), *argv]
    return argv


def _sanitizer_log(folder: Path) -> str:
    p = folder / "sanitizer.log"
    return p.read_text(errors="replace") if p.is_file() else ""


# --- the kernel protocols ----------------------------------------------------------------------


def _read_child_json(path: Path, ctx: _Ctx, what: str) -> dict[str, Any] | None:
    try:
        return A.read_json(path)
    except A.ResultInvalid as e:
        ctx.notes.append(f"{what}: {e}")
        return None


def _kernel_facts(
    ctx: _Ctx, manifest: Mapping[str, Any], result: Mapping[str, Any] | None, sizes: list[C.SizeResult], **kw: Any
) -> tuple[F.RunFacts, F.NumericsFacts | None]:
    declared = tuple(str(s.get("label")) for s in manifest.get("sizes", []))
    failed = tuple(s.label for s in sizes if not s.ok and not s.missing and not s.reference_error)
    missing = tuple(s.label for s in sizes if s.missing)
    mutated = tuple(dict.fromkeys(m for s in sizes for m in s.mutated))
    first_unwritten = next((s for s in sizes if s.unwritten), None)
    unwritten_elems = sum(int(u.get("count", 0)) for s in sizes for u in s.unwritten.values())
    u_fraction = u_pattern = None
    if first_unwritten is not None:
        us = list(first_unwritten.unwritten.values())
        total = sum(int(u.get("total", 0)) for u in us) or 1
        u_fraction = sum(int(u.get("count", 0)) for u in us) / total
        patterns = {str(u.get("where")) for u in us}
        u_pattern = patterns.pop() if len(patterns) == 1 else "scattered"
    bad_leaf = next((leaf for s in sizes for leaf in s.leaves if not leaf.ok), None)
    canary = [c for c in (result or {}).get("canary", []) or [] if isinstance(c, Mapping)]
    canary_name = next(
        (str(c.get("name") or c.get("tensor")) for c in canary if c.get("name") or c.get("tensor")), None
    )
    invalid = next((s.invalid for s in sizes if s.invalid), None)
    facts = _base_facts(
        ctx,
        result_missing=bool(missing),
        result_invalid=invalid,
        inputs_mutated=bool(mutated),
        mutated_inputs=mutated,
        output_unwritten=unwritten_elems > 0,
        unwritten_elems=unwritten_elems,
        unwritten_fraction=u_fraction,
        unwritten_pattern=u_pattern,
        canary_corrupted=bool(canary),
        canary_tensor=canary_name,
        sizes_declared=declared,
        sizes_failed=failed,
        sizes_missing=missing,
        nan_outputs=sum(leaf.nan_count for s in sizes for leaf in s.leaves),
        inf_outputs=sum(leaf.inf_count for s in sizes for leaf in s.leaves),
        max_ulp=bad_leaf.max_ulp if bad_leaf else None,
        mismatch_pattern=bad_leaf.pattern if bad_leaf else None,
        exact_fraction=(bad_leaf.exact / bad_leaf.total) if bad_leaf and bad_leaf.total else None,
        values_permuted=bool(bad_leaf and bad_leaf.permuted),
        kernel_raised=any(s.kernel_error for s in sizes),
        reference_failed=any(s.reference_error for s in sizes),
        nondeterministic=any(s.nondeterministic for s in sizes),
        **kw,
    )
    return facts, C.numerics_facts(sizes)  # None when nothing compared; diagnose/run/numerics.py


def _compare_all(
    ctx: _Ctx,
    manifest: Mapping[str, Any],
    result: Mapping[str, Any] | None,
    ref: Mapping[str, Any] | None,
    folder: Path,
) -> list[C.SizeResult]:
    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)  # --atol/--rtol over TOLERANCE
    by_label_k = {str(r.get("label")): r for r in (result or {}).get("sizes", []) if isinstance(r, Mapping)}
    by_label_r = {str(r.get("label")): r for r in (ref or {}).get("sizes", []) if isinstance(r, Mapping)}
    out = []
    for entry in manifest.get("sizes", []):
        label, d = str(entry.get("label")), str(entry.get("dir"))
        out.append(
            C.compare_size(
                label,
                by_label_k.get(label),
                folder / "outputs" / d,
                by_label_r.get(label),
                ctx.rd / "reference" / d,
                tol,
                inputs=entry,
            )
        )
    return out


def kernel_verdict(outcome: Outcome, facts: F.RunFacts, sizes: list[C.SizeResult]) -> str:
    if facts.reference_failed:
        return "no-result"
    clean = outcome.exit_code == 0 and outcome.signal is None and not outcome.timed_out
    over_smem = (facts.compiled_shared_bytes or 0) > (facts.smem_limit_bytes or float("inf"))
    flagged = (
        facts.inputs_mutated
        or facts.output_unwritten
        or facts.canary_corrupted
        or facts.oob_loads > 0
        or facts.oob_stores > 0
        or facts.compile_failed
        or over_smem
    )
    if clean and sizes and all(s.ok for s in sizes) and not flagged:
        return "pass"
    if facts.result_missing and clean and not flagged and not facts.sizes_failed and not facts.kernel_raised:
        return "no-result"
    return "fail"


def _symptoms(outcome: Outcome | None, facts: F.RunFacts, ev: Evidence, verdict: str) -> L.Symptoms:
    crashed = outcome is not None and (outcome.exit_code not in (0, None) or outcome.signal is not None)
    return L.Symptoms(
        failed=verdict != "pass",
        error=crashed or facts.kernel_raised or ev.cuda is not None,
        timed_out=bool(outcome and outcome.timed_out),
        unwritten=facts.output_unwritten,
        nondeterministic=facts.nondeterministic,
    )


def _run_kernel_target(ctx: _Ctx) -> RunResult:
    py = sys.executable
    inputs_dir = ctx.rd / "children" / "inputs"
    o_in = _attempt(
        ctx,
        inputs_dir,
        [py, "-P", "-m", "harness.inputs", str(_spec(ctx, inputs_dir / "spec.json", out_dir=str(ctx.rd / "inputs")))],
        {},
    )
    if _harness_broken(o_in):
        raise KdiagError("the harness package cannot be imported by the children (PYTHONPATH)")
    manifest = _read_child_json(ctx.rd / "inputs" / "manifest.json", ctx, "inputs manifest")
    if o_in.exit_code != 0 or manifest is None:
        # the inputs could not be made: the submission's make_inputs (or the benchmark's) failed
        facts = _base_facts(ctx, result_missing=True, rungs=("inputs",))
        ev = _evidence(ctx, _text(o_in), o_in, facts)
        diag = ctx.matcher.diagnose(ev)
        # exited 0 without writing inputs: nothing was made to check
        clean = o_in.exit_code == 0 and o_in.signal is None and not o_in.timed_out
        verdict = "no-result" if clean else "fail"
        made = L.Rung("inputs", "make the inputs (the inputs child)")
        _record(ctx, made, list(o_in.argv), inputs_dir, o_in, verdict, diag, True)
        return _finish(ctx, verdict, diag, ev, ())

    ref_dir = ctx.rd / "children" / "reference"
    ref_spec = _spec(ctx, ref_dir / "spec.json", out_dir=str(ctx.rd / "reference"))
    ref_box: list[Outcome | BaseException] = []

    def reference() -> None:
        try:
            ref_box.append(_attempt(ctx, ref_dir, [py, "-P", "-m", "harness.reference", str(ref_spec)], {}))
        except BaseException as e:  # re-raised in the main thread
            ref_box.append(e)

    ref_thread = threading.Thread(target=reference, name="kdiag-reference", daemon=True)
    ref_thread.start()
    planner = L.Planner(ladder=ctx.opts.ladder, gpu=ctx.gpu, sanitizer=ctx.sanitizer)
    rung: L.Rung | None = planner.next(L.Symptoms())
    ref_manifest: dict[str, Any] | None = None
    last: tuple[Outcome, F.RunFacts, F.NumericsFacts | None, dict[str, Any], str, list[C.SizeResult]] | None = None
    while rung is not None:
        n = len(ctx.rungs) + 1
        folder = ctx.rd / "rungs" / f"{n}-{rung.name}"
        spec = _spec(ctx, folder / "spec.json", out_dir=str(folder))
        argv = _rung_argv(ctx, rung, folder, [py, "-P", "-m", "harness.kernel", str(spec)])
        outcome = _attempt(ctx, folder, argv, rung.env)
        if ref_thread.is_alive() or ref_manifest is None:
            ref_thread.join()
            got = ref_box[0] if ref_box else None
            if isinstance(got, BaseException):
                raise got
            ref_manifest = _read_child_json(ctx.rd / "reference" / "manifest.json", ctx, "reference manifest")
            if ref_manifest is None:
                ref_manifest = {"sizes": [{"label": s.get("label"), "error": "the reference child wrote no result"}
                                          for s in manifest.get("sizes", [])]}  # fmt: skip
        if _harness_broken(outcome):
            raise KdiagError("the harness package cannot be imported by the kernel child (PYTHONPATH)")
        result = _read_child_json(folder / "result.json", ctx, f"rung {n} result")
        sizes = _compare_all(ctx, manifest, result, ref_manifest, folder)
        extra, triton_text = _triton_checks(folder, ctx.notes)
        facts, numerics = _kernel_facts(ctx, manifest, result, sizes, rungs=(*(r.name for r in ctx.rungs), rung.name))
        text = _text(outcome, ("triton", triton_text), ("sanitizer", _sanitizer_log(folder)))
        ev = _evidence(ctx, text, outcome, facts, numerics, extra)
        verdict = kernel_verdict(outcome, ev.run or facts, sizes)
        diag = ctx.matcher.diagnose(ev)
        done = verdict == "pass" or L.explained(diag, ctx.rules)
        _record(ctx, rung, argv, folder, outcome, verdict, diag, done)
        _write_rung_evidence(folder, ev)
        last = (outcome, facts, numerics, extra, text, sizes)
        if done:
            break
        rung = planner.next(_symptoms(outcome, ev.run or facts, ev, verdict))
    assert last is not None
    outcome, facts, numerics, extra, text, sizes = last
    facts = dataclasses.replace(facts, rungs_unavailable=tuple(planner.unavailable))
    ev = _evidence(ctx, text, outcome, facts, numerics, extra)
    verdict = kernel_verdict(outcome, ev.run or facts, sizes)
    matrix = _probe_matrix(ctx, manifest, sizes, ev.run or facts)
    if matrix is not None:
        facts = dataclasses.replace(facts, **P.facts(matrix))
        ev = _evidence(ctx, text, outcome, facts, numerics, extra)
        verdict = probe_verdict(verdict, matrix)
    diag = ctx.matcher.diagnose(ev, lead="probe" if verdict == "assumption" else "contract")
    shrunk = _shrink_and_repro(ctx, manifest, sizes, matrix, verdict, ev.run or facts)
    res = _finish(ctx, verdict, diag, ev, tuple(sizes))
    return dataclasses.replace(res, probes=matrix, shrunk=shrunk)


# --- probes: inputs outside the declared contract -------------------------------------------------


def probe_verdict(declared: str, matrix: P.Matrix | None) -> str:
    """The run's verdict once the probes are in: a failure inside the contract (a declared size, another
    seed or a repeat at one) is ``fail``; declared sizes that pass with a probe that fails, ``assumption``."""
    if declared != "pass" or matrix is None:
        return declared
    if P.contract_failed(matrix):
        return "fail"
    return "assumption" if P.assumption_failed(matrix) else "pass"


def _shrink_and_repro(
    ctx: _Ctx,
    manifest: Mapping[str, Any],
    sizes: list[C.SizeResult],
    matrix: P.Matrix | None,
    verdict: str,
    facts: F.RunFacts,
) -> Any:
    """The failing input, shrunk when --shrink asks (diagnose/run/shrink.py), and repro.py for it."""
    if verdict not in ("fail", "assumption"):
        return None
    from diagnose.run import shrink

    clean = set(_clean_sizes(ctx, sizes))
    dirty = [s.label for s in sizes if s.ok and s.label not in clean]
    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)
    try:
        return shrink.after_run(
            ctx.target, manifest, sizes, matrix, ctx.rd, seed=ctx.opts.seed, do_shrink=ctx.opts.shrink,
            device=ctx.device, runner=lambda name, entries: run_entries(ctx, name, entries), tolerance=tol,
            dirty=dirty, notes=ctx.notes,
        )  # fmt: skip
    except KdiagError:
        raise
    except Exception as e:  # the diagnosis stands without a repro
        ctx.notes.append(f"shrink/repro failed: {type(e).__name__}: {e}")
        return None


def _probe_timeout(ctx: _Ctx) -> float | None:
    """A probe child may take ten times the plain run, at least a minute, never more than --timeout."""
    plain = ctx.rungs[0].duration_s if ctx.rungs else 30.0
    limit = max(60.0, 10.0 * plain)
    return min(limit, ctx.opts.timeout) if ctx.opts.timeout else limit


def _probe_matrix(
    ctx: _Ctx, manifest: Mapping[str, Any], sizes: list[C.SizeResult], facts: F.RunFacts
) -> P.Matrix | None:
    level = ctx.opts.probes
    if level == "none":
        return None
    plain = ctx.rungs[0] if ctx.rungs else None
    why = None
    if plain is None or plain.timed_out:
        why = "the declared run timed out"
    elif plain.signal:
        why = f"the declared run was killed by {plain.signal}"
    elif facts.reference_failed:
        why = "the reference failed at a declared size"
    elif not sizes or all(s.missing for s in sizes):
        why = "the declared run left no result"
    if why:
        ctx.notes.append(f"probes not run: {why}")
        return None
    interpreter = ctx.target.uses_triton and not ctx.gpu
    probes = P.derive(manifest, level, seed=ctx.opts.seed, passed=_clean_sizes(ctx, sizes), interpreter=interpreter)
    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)
    matrix = P.run_matrix(probes, lambda name, entries: run_entries(ctx, name, entries), level, tol)
    matrix.write(ctx.rd / "probes.json")
    return matrix


def _clean_sizes(ctx: _Ctx, sizes: list[C.SizeResult]) -> list[str]:
    """Declared sizes that matched with no out-of-bounds access or canary hit (the plain rung's records)."""
    folder = ctx.rd / ctx.rungs[0].dir if ctx.rungs else None
    result = _read_child_json(folder / "result.json", ctx, "plain result") if folder else None
    dirty = {
        str(r.get("label"))
        for r in (result or {}).get("sizes", [])
        if isinstance(r, Mapping) and (r.get("oob") or r.get("canary"))
    }
    return [s.label for s in sizes if s.ok and s.label not in dirty]


def run_entries(ctx: _Ctx, name: str, entries: Sequence[Mapping[str, Any]]) -> P.Batch:
    """Run probe entries (sizes, seeds, value changes, layouts) through one inputs child, one reference
    child and kernel children: a fresh kernel child continues after one that crashed or hung."""
    t0 = time.monotonic()
    py = sys.executable
    base = ctx.rd / name
    inputs = base / "inputs"
    timeout = _probe_timeout(ctx)
    children: list[dict[str, Any]] = []

    def note(child: str, o: Outcome) -> None:
        children.append({"name": child, "exit": o.exit_code, "signal": o.signal, "timed_out": o.timed_out,
                         "seconds": round(o.duration_s, 3)})  # fmt: skip

    folder = base / "children" / "inputs"
    spec = _spec(ctx, folder / "spec.json", inputs_dir=str(inputs), out_dir=str(inputs), probes=list(entries))
    o_in = _attempt(ctx, folder, [py, "-P", "-m", "harness.inputs", str(spec)], {}, timeout=timeout)
    note("inputs", o_in)
    manifest = _read_child_json(inputs / "manifest.json", ctx, f"{name} inputs manifest")
    if manifest is None:
        why = "the probe inputs child wrote no manifest" + (" (timed out)" if o_in.timed_out else "")
        manifest = {"sizes": [{"label": e.get("label"), "error": why} for e in entries]}
        return P.Batch(manifest, {}, {}, base / "reference", tuple(children), {}, time.monotonic() - t0)
    ref_dir = base / "children" / "reference"
    ref_spec = _spec(ctx, ref_dir / "spec.json", inputs_dir=str(inputs), out_dir=str(base / "reference"))
    ref_box: list[Outcome | BaseException] = []

    def reference() -> None:
        try:
            ref_box.append(_attempt(ctx, ref_dir, [py, "-P", "-m", "harness.reference", str(ref_spec)], {},
                                    timeout=timeout))  # fmt: skip
        except BaseException as e:  # re-raised in the main thread
            ref_box.append(e)

    thread = threading.Thread(target=reference, name=f"kdiag-{name}-reference", daemon=True)
    thread.start()
    records: dict[str, dict[str, Any]] = {}
    lost: dict[str, str] = {}
    todo = [e for e in manifest.get("sizes", []) if isinstance(e, Mapping) and not e.get("error")]
    for attempt in range(3):
        if not todo:
            break
        sub = f"manifest-k{attempt}.json"
        (inputs / sub).write_text(json.dumps({**manifest, "sizes": todo}, indent=1))
        folder = base / f"kernel-{attempt}"
        spec = _spec(ctx, folder / "spec.json", inputs_dir=str(inputs), out_dir=str(folder), manifest=sub, repeat=1)
        o = _attempt(ctx, folder, [py, "-P", "-m", "harness.kernel", str(spec)], {}, timeout=timeout)
        note(f"kernel-{attempt}", o)
        result = _read_child_json(folder / "result.json", ctx, f"{name} kernel-{attempt} result") or {}
        for rec in result.get("sizes", []):
            if isinstance(rec, dict) and "label" in rec:
                records[str(rec["label"])] = {**rec, "_folder": str(folder)}
        missing = [e for e in todo if str(e.get("label")) not in records]
        if missing and not result.get("done"):
            # the child died at the first entry it left no record for: that probe crashed (or hung) it
            how = "timed out" if o.timed_out else (o.signal or f"exit {o.exit_code}")
            lost[str(missing[0].get("label"))] = f"the kernel child died here ({how})"
            missing = missing[1:]
        todo = missing
    for e in todo:
        lost[str(e.get("label"))] = "not run: the kernel children kept dying"
    thread.join()
    got = ref_box[0] if ref_box else None
    if isinstance(got, BaseException):
        raise got
    if isinstance(got, Outcome):
        note("reference", got)
    ref = _read_child_json(base / "reference" / "manifest.json", ctx, f"{name} reference manifest") or {}
    by_label = {str(r.get("label")): r for r in ref.get("sizes", []) if isinstance(r, Mapping)}
    return P.Batch(manifest, records, by_label, base / "reference", tuple(children), lost, time.monotonic() - t0)


# --- commands and .cu files --------------------------------------------------------------------


def _command_verdict(outcome: Outcome, diag: Diagnosis) -> str:
    clean = outcome.exit_code == 0 and outcome.signal is None and not outcome.timed_out
    return "pass" if clean and diag.best is None else "fail"


def _run_command(ctx: _Ctx, argv: list[str], compile_log: str = "", **facts_kw: Any) -> RunResult:
    planner = L.Planner(ladder=ctx.opts.ladder, gpu=ctx.gpu, sanitizer=ctx.sanitizer)
    rung: L.Rung | None = planner.next(L.Symptoms())
    last: tuple[Outcome, str] | None = None
    while rung is not None:
        n = len(ctx.rungs) + 1
        folder = ctx.rd / "rungs" / f"{n}-{rung.name}"
        full = _rung_argv(ctx, rung, folder, argv)
        outcome = _attempt(ctx, folder, full, rung.env)
        text = _text(outcome, ("compile", compile_log), ("sanitizer", _sanitizer_log(folder)))
        facts = _base_facts(ctx, rungs=(*(r.name for r in ctx.rungs), rung.name), **facts_kw)
        ev = _evidence(ctx, text, outcome, facts)
        diag = ctx.matcher.diagnose(ev)
        verdict = _command_verdict(outcome, diag)
        done = verdict == "pass" or L.explained(diag, ctx.rules)
        _record(ctx, rung, full, folder, outcome, verdict, diag, done)
        _write_rung_evidence(folder, ev)
        last = (outcome, text)
        if done:
            break
        rung = planner.next(_symptoms(outcome, facts, ev, verdict))
    assert last is not None
    outcome, text = last
    facts = _base_facts(
        ctx, rungs=tuple(r.name for r in ctx.rungs), rungs_unavailable=tuple(planner.unavailable), **facts_kw
    )
    ev = _evidence(ctx, text, outcome, facts)
    diag = ctx.matcher.diagnose(ev)
    return _finish(ctx, _command_verdict(outcome, diag), diag, ev, ())


def nvcc_argv(nvcc: str, source: Path, binary: Path, arch: str) -> list[str]:
    """nvcc with ptxas's resource report and line info; ``sm_90a``-style archs get a -gencode."""
    a = arch.removeprefix("sm_").removeprefix("compute_")
    flags = ["-gencode", f"arch=compute_{a},code=sm_{a}"] if a.endswith(("a", "f")) else [f"-arch=sm_{a}"]
    return [nvcc, "-Xptxas", "-v", "-lineinfo", *flags, "-o", str(binary), str(source)]


def _find_nvcc(env: Mapping[str, str]) -> str | None:
    from diagnose.envinfo import stack

    return stack.find_binary("nvcc", env)


def _run_cuda_file(ctx: _Ctx) -> RunResult:
    t = ctx.target
    assert t.path is not None
    arch = ctx.opts.arch or (ctx.gpu_facts.arch if ctx.gpu and ctx.gpu_facts and ctx.gpu_facts.arch else None)
    arch = arch or ctx.target_arch or "sm_90"
    build = ctx.rd / "build"
    build.mkdir(exist_ok=True)
    compile_rung = L.Rung("compile", f"nvcc for {arch} with -Xptxas -v -lineinfo", env={})
    folder = ctx.rd / "rungs" / "1-compile"
    nvcc = _find_nvcc(ctx.base_env)
    if nvcc is None:
        text = "kdiag: nvcc not found (PATH, CUDA_HOME, /usr/local/cuda, the nvidia-cuda-nvcc wheel)\n"
        facts = _base_facts(ctx, rungs=("compile",), rungs_unavailable=("compile: nvcc not found",))
        facts = dataclasses.replace(facts, target_arch=arch)
        ev = _evidence(ctx, text, None, facts)
        diag = ctx.matcher.diagnose(ev)
        _record(ctx, compile_rung, [], folder, None, "fail", diag, True)
        return _finish(ctx, "fail", diag, ev, ())
    argv = nvcc_argv(nvcc, t.path.resolve(), build / t.path.stem, arch)
    outcome = _attempt(ctx, folder, argv, {})
    log = outcome.stdout.read_text() + outcome.stderr.read_text()
    (ctx.rd / "compile.log").write_text(log)
    compiled = outcome.exit_code == 0 and (build / t.path.stem).is_file()
    if not compiled:
        facts = dataclasses.replace(_base_facts(ctx, rungs=("compile",)), target_arch=arch)
        ev = _evidence(ctx, log, None, facts)
        diag = ctx.matcher.diagnose(ev)
        _record(ctx, compile_rung, argv, folder, outcome, "fail", diag, True)
        return _finish(ctx, "fail", diag, ev, ())
    if not ctx.gpu:
        facts = dataclasses.replace(
            _base_facts(ctx, rungs=("compile",), compiled=True, rungs_unavailable=("run: no GPU",)), target_arch=arch
        )
        ev = _evidence(ctx, log, None, facts)
        diag = ctx.matcher.diagnose(ev)
        _record(ctx, compile_rung, argv, folder, outcome, "no-result", diag, True)
        ctx.notes.append(f"compiled for {arch}; running the binary needs a GPU")
        return _finish(ctx, "no-result", diag, ev, ())
    diag = ctx.matcher.diagnose(_evidence(ctx, log, None, _base_facts(ctx, rungs=("compile",), compiled=True)))
    _record(ctx, compile_rung, argv, folder, outcome, "pass", diag, False)
    return _run_command(ctx, [str(build / t.path.stem)], compile_log=log, compiled=True)


# --- the end -----------------------------------------------------------------------------------


def _write_rung_evidence(folder: Path, ev: Evidence) -> None:
    (folder / "evidence.json").write_text(json.dumps(ev.to_dict(), indent=1, default=str))


def _finish(ctx: _Ctx, verdict: str, diag: Diagnosis, ev: Evidence, sizes: tuple[C.SizeResult, ...]) -> RunResult:
    return RunResult(
        verdict=verdict,
        diagnosis=diag,
        evidence=ev,
        target=ctx.target,
        run_id=ctx.run_id,
        run_dir=ctx.rd,
        rungs=tuple(ctx.rungs),
        sizes=sizes,
        notes=tuple(ctx.notes),
    )


def execute(target: Target, opts: Options) -> RunResult:
    """Run ``target`` and return the diagnosed result; everything is also written under the run dir."""
    from diagnose.run import output

    t0 = time.monotonic()
    ctx = _context(target, opts)
    if target.kind == "command":
        res = _run_command(ctx, list(target.argv))
    elif target.kind == "cuda-file":
        res = _run_cuda_file(ctx)
    elif target.kind in KERNEL_KINDS:
        res = _run_kernel_target(ctx)
    else:
        raise KdiagError(f"unknown target kind {target.kind!r}")
    res = dataclasses.replace(res, took_s=time.monotonic() - t0)
    (ctx.rd / "evidence.json").write_text(
        json.dumps(
            {"evidence": res.evidence.to_dict(), "rungs": [r.to_dict() for r in res.rungs]}, indent=1, default=str
        )
    )
    (ctx.rd / "report.json").write_text(json.dumps(output.to_dict(res), indent=1, default=str))
    return res
