"""One run's frozen context (what it runs, where, with which rules) and its log (notes, rungs, Xid events).

The context never changes once made; what a run learns as it goes is recorded in its
:class:`RunLog`, through the log's methods only.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from diagnose import facts as F
from diagnose.matcher import Diagnosis, Matcher
from diagnose.rules import RuleSet, default_rules
from diagnose.run import ladder as L
from diagnose.run.compare import SizeResult
from diagnose.run.result import Options, RungRecord, RunResult
from diagnose.run.targets import Target
from diagnose.runner import Outcome, child_env, ensure_child_dirs

ROOT = Path(__file__).resolve().parent.parent.parent  # the folder that holds diagnose/ and harness/
DEFAULT_TARGET_GPU = "H100"
T = TypeVar("T")


class Background(Generic[T]):
    """A value computed in a thread: the rule base compiles (~0.8 s) beside the first children.  ``get``
    waits for it, and raises what the thread raised."""

    def __init__(self, fn: Callable[[], T], name: str) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), name=name, daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], T]) -> None:
        try:
            self._value = fn()
        except BaseException as e:  # raised where the value is needed
            self._error = e

    def get(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


@dataclass
class RunLog:
    """What a run records as it goes: notes, the rungs that ran, and the environment snapshot (an Xid
    event during an attempt updates it and the GPU facts rules see)."""

    snapshot: dict[str, Any] | None = None
    gpu_facts: F.GpuFacts | None = None
    notes: list[str] = field(default_factory=list)
    rungs: list[RungRecord] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def xid_events(self, events: list[tuple[int, int]], rd: Path) -> None:
        from diagnose.envinfo import snapshot as S

        if self.snapshot is None:
            return
        nv = self.snapshot.setdefault("nvml", {})
        nv.setdefault("xid_events", []).extend({"device": d, "xid": x} for d, x in events)
        self.gpu_facts = S.gpu_facts(self.snapshot)
        (rd / "env.json").write_text(json.dumps(self.snapshot, indent=1, default=str))

    def rung(
        self, rung: L.Rung, argv: list[str] | tuple[str, ...], where: str, outcome: Outcome | None, verdict: str,
        diag: Diagnosis, explained: bool,
    ) -> RungRecord:  # fmt: skip
        changed = dict(rung.env)
        if rung.tool:
            changed["wrapper"] = f"compute-sanitizer --tool {rung.tool}"
        o = outcome
        record = RungRecord(
            n=len(self.rungs) + 1, name=rung.name, why=rung.why, changed=changed, argv=tuple(argv), dir=where,
            exit_code=o.exit_code if o else None, signal=o.signal if o else None,
            timed_out=o.timed_out if o else False, duration_s=o.duration_s if o else 0.0, verdict=verdict,
            category=None if verdict == "pass" else diag.category,
            failure_mode=None if verdict == "pass" else diag.failure_mode,
            rule=diag.rule, confidence=diag.confidence, explained=explained,
            max_rss_kib=o.max_rss_kib if o else None,
            cpu_s=(o.user_cpu_s or 0.0) + (o.system_cpu_s or 0.0) if o else None,
            output_bytes=(o.stdout.total_bytes, o.stderr.total_bytes) if o else (0, 0),
        )  # fmt: skip
        self.rungs.append(record)
        return record


@dataclass(frozen=True)
class RunContext:
    target: Target
    opts: Options
    rules_source: Background[RuleSet]
    run_id: str
    rd: Path
    base_env: Mapping[str, str]
    gpu: bool
    target_gpu: str
    target_arch: str | None
    sanitizer: str | None
    common: Mapping[str, str]  # overrides every child gets
    log: RunLog
    kernel_timeout: float | None = None  # the kernel child's limit when not --timeout (a first, short try)
    input_budget: int | None = None  # fit a KernelBench problem's inputs to this instead of the default
    keep_sample_shape: bool = False  # fit a KernelBench problem by its batch alone (every sample as declared)
    stub_extensions: bool = False  # the children record and refuse cpp_extension builds (no GPU, sources compiled)
    extension_stand_ins: bool = False  # with stub_extensions: builds return stand-ins whose functions refuse to run

    @property
    def device(self) -> str:
        return "cuda" if self.gpu else "cpu"

    @property
    def gpu_facts(self) -> F.GpuFacts | None:
        return self.log.gpu_facts

    @property
    def rules(self) -> RuleSet:
        return self.rules_source.get()

    @functools.cached_property
    def matcher(self) -> Matcher:
        return Matcher(self.rules)

    def finish(self, verdict: str, diag: Diagnosis, ev: Any, sizes: tuple[SizeResult, ...] = ()) -> RunResult:
        return RunResult(
            verdict=verdict, diagnosis=diag, evidence=ev, target=self.target, run_id=self.run_id, run_dir=self.rd,
            rungs=tuple(self.log.rungs), sizes=sizes, notes=tuple(self.log.notes),
        )  # fmt: skip


def make_run_dir(root: Path) -> tuple[str, Path]:
    rid = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    path = root / rid
    path.mkdir(parents=True, exist_ok=False)
    return rid, path.resolve()


def _environment(env: Mapping[str, str], rd: Path, log: RunLog) -> None:
    """The envinfo snapshot (NVML, stack); written to env.json."""
    from diagnose.envinfo import snapshot as S

    try:
        snap = S.snapshot(env=env)
        (rd / "env.json").write_text(json.dumps(snap, indent=1, default=str))
        log.snapshot, log.gpu_facts = snap, S.gpu_facts(snap)
    except Exception as e:  # the snapshot is evidence, not a precondition
        log.note(f"environment snapshot failed: {type(e).__name__}: {e}")


def _arch_of(name: str | None) -> str | None:
    if not name:
        return None
    from diagnose.envinfo import gpuspec

    spec = gpuspec.try_lookup(name)
    return spec.arch if spec else None


def make_context(target: Target, opts: Options) -> RunContext:
    given = opts.rules
    loader = (lambda: given) if isinstance(given, RuleSet) else (given or default_rules)
    rules: Background[RuleSet] = Background(loader, "kdiag-rules")
    rid, rd = make_run_dir(opts.runs_dir)
    base = dict(opts.base_env if opts.base_env is not None else os.environ)
    log = RunLog()
    for note in target.notes:  # what reading the target found (a drop-in KernelBench submission)
        log.note(note)
    _environment(child_env(base, {}, run_dir=rd), rd, log)  # what the children will see (GPUs pinned)
    facts = log.gpu_facts
    gpu = bool(facts and facts.nvml_ok and facts.name) if opts.gpu is None else opts.gpu
    target_gpu = opts.target_gpu or (facts.name if gpu and facts and facts.name else DEFAULT_TARGET_GPU)
    sanitizer, why = L.find_sanitizer(log.snapshot)
    if sanitizer is None and why and gpu:
        log.note(f"compute-sanitizer: {why}")
    common = {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), base.get("PYTHONPATH", "")) if p)}
    if not gpu:
        # no GPU: Triton kernels run in Triton's interpreter on CPU tensors
        common["TRITON_INTERPRET"] = "1"
    ensure_child_dirs(rd)
    return RunContext(
        target=target, opts=opts, rules_source=rules, run_id=rid, rd=rd, base_env=base, gpu=gpu,
        target_gpu=target_gpu, target_arch=_arch_of(target_gpu), sanitizer=sanitizer, common=common, log=log,
    )  # fmt: skip
