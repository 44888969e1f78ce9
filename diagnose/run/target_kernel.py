"""Target kinds with a kernel protocol (``kernel-module``, ``kernelbench``, ``gpumode``): the inputs child
makes the inputs once and then runs the reference on them, every rung re-runs
the kernel child on the same inputs, and the parent compares (:mod:`diagnose.run.compare`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from diagnose.run import accum_run as AR
from diagnose.run import assemble as A
from diagnose.run import atomic_updates as AU
from diagnose.run import build_calls as BC
from diagnose.run import checker
from diagnose.run import children as K
from diagnose.run import compare as C
from diagnose.run import compile_check as CC
from diagnose.run import cuda_sources as S
from diagnose.run import ext_symbols as ES
from diagnose.run import ladder as L
from diagnose.run import mask_fill as MF
from diagnose.run import no_result as NR
from diagnose.run import online_softmax as OS
from diagnose.run import probes as P
from diagnose.run import runfacts as R
from diagnose.run import sizes as Z
from diagnose.run import source_failures as SF
from diagnose.run import stride_reuse as SR
from diagnose.run import tail_lanes as TL
from diagnose.run import triton_names as TN
from diagnose.run import triton_source as TS
from diagnose.run.climb import Step, climb, rel, sanitizer_log, wrapper
from diagnose.run.context import RunContext
from diagnose.run.probe_run import harness_contract, probe_matrix, probe_verdict, shrink_and_repro
from diagnose.run.result import KdiagError, RunResult
from diagnose.runner import Outcome

#: the file harness/extension_stub.py writes where a child was asked to build an extension
ES_CALLS_FILE = "extension_calls.json"
#: ... and where a stand-in for a module built at import had one of its functions called
ES_USED_FILE = "extension_used.json"
#: a submission that branches on a tensor's device type (``x.device.type == "cuda"``, ``x.is_cpu``): under the
#: emulation its tensors say "cpu" there, so a CPU fallback would run where a GPU takes the kernel's path
_DEVICE_TEST = re.compile(r"\.device\.type\b|\.is_cpu\b|\bdevice\s*[!=]=|[!=]=\s*(?:torch\.device\()?['\"]cuda")

KINDS = ("kernel-module", "kernelbench", "gpumode")
#: what the KernelBench protocol's children compare with (harness/protocol.py KERNELBENCH_TOLERANCE)
KERNELBENCH_TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def compare_all(
    ctx: RunContext,
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
        kernel, reference = by_label_k.get(label), by_label_r.get(label)
        out.append(
            C.compare_size(
                label, kernel, folder / "outputs" / d, reference, ctx.rd / "reference" / d, tol, inputs=entry
            )
        )
    return out


def _no_inputs(ctx: RunContext, o_in: Outcome, folder: Path) -> RunResult:
    """The inputs could not be made: the submission's make_inputs (or the benchmark's) failed."""
    facts = R.base_facts(ctx, result_missing=True, rungs=("inputs",))
    ev = A.evidence(ctx, K.text(o_in), o_in, facts)
    diag = ctx.matcher.diagnose(ev)
    # exited 0 without writing inputs: nothing was made to check
    clean = o_in.exit_code == 0 and o_in.signal is None and not o_in.timed_out
    verdict = "no-result" if clean else "fail"
    made = L.Rung("inputs", "make the inputs (the inputs child)")
    ctx.log.rung(made, list(o_in.argv), rel(ctx, folder), o_in, verdict, diag, True)
    return ctx.finish(verdict, diag, ev)


#: harness._spec.BF16_PREFIX (the children's key for the interpreter's bfloat16 operations; not imported:
#: the parent does not import the harness)
BF16_PREFIX = "interpreter-bf16:"
#: harness.triton_bf16.TF32
TF32 = "tl.dot of float32 as TF32"


def emulated(ctx: RunContext, *counts: Any) -> None:
    """Say in the report that the run relied on the children's CUDA emulation (harness/emulate.py)."""
    used: dict[str, int] = {}
    for c in counts:
        for what, n in (c or {}).items() if isinstance(c, Mapping) else ():
            used[str(what)] = used.get(str(what), 0) + int(n)
    bf16 = sorted(k.removeprefix(BF16_PREFIX) for k in used if k.startswith(BF16_PREFIX))
    used = {k: n for k, n in used.items() if not k.startswith(BF16_PREFIX)}
    if TF32 in bf16:
        bf16.remove(TF32)
        ctx.log.note(f"float32 tl.dot under Triton's interpreter: its operands rounded to TF32, as the {ctx.target_gpu} "
                     "tensor cores read them (Triton's default input_precision; input_precision=\"ieee\" is exact)")  # fmt: skip
    if bf16:
        ctx.log.note(f"bfloat16 under Triton's interpreter: {', '.join(bf16)} computed in float32 and rounded to "
                     "bfloat16 (the interpreter would compute on the raw 16 bits)")  # fmt: skip
    if used:
        what = ", ".join(sorted(used))
        ctx.log.note(f"CUDA emulated on the CPU for this target: {what} (x.is_cuda reports True, "
                     "CUDA devices map to the CPU; a GPU run would not need it)")  # fmt: skip


def _compile_check(ctx: RunContext) -> CC.Check | None:
    """Compile the submission's CUDA sources (load_inline, load, RawKernel, NVRTC), when it has any."""
    t = ctx.target
    if t.path is None:
        return None
    found = S.extract(t.path)
    for u in found.unresolved:
        ctx.log.note(f"CUDA source not checked: {u}")
    # another vendor's source (HIP in cuda_sources; a fork's MUSA in cpp_sources): its own toolchain builds it
    other = next(((s, p) for s in found.sources if (p := s.platform) is not None), None)
    if other is not None:
        src, p = other
        ctx.log.note(f"{src.origin} is {p.name}, for {p.devices} ({p.builder}): nvcc cannot check it, and it runs "
                     f"only on {p.devices} with that platform's build of torch")  # fmt: skip
        return None
    if not any(s.lang == "cuda" for s in found.sources):
        return None
    nvcc = CC.find_nvcc(ctx.base_env)
    if nvcc is None:
        ctx.log.note("CUDA sources found, not compiled: nvcc not found")
        return None
    # the target: the one asked for (--arch), this machine's GPU, else the one the submission's own flags name
    # (extra_cuda_cflags=["-arch=sm_100a"]: what its harness's nvcc builds), else the target GPU's
    asked = next((s.arch for s in found.sources if s.lang == "cuda" and s.arch), None)
    arch = (
        ctx.opts.arch
        or (ctx.gpu_facts.arch if ctx.gpu and ctx.gpu_facts else None)
        or asked
        or ctx.target_arch
        or "sm_90"
    )
    if asked and arch == asked and not ctx.opts.arch:
        ctx.log.note(f"CUDA sources compiled for {asked}, the target the submission's own compiler flags name")

    def run(argv: list[str], folder: Path, timeout: float) -> Outcome:
        return K.attempt(ctx, folder, argv, {}, timeout=timeout)

    cxx = CC.find_host_compiler(ctx.base_env)
    check = CC.check(found, ctx.rd / "build", arch, nvcc, ctx.log.snapshot, run, cxx=cxx)
    if not check.compiled:
        for item in check.listed:
            ctx.log.note(f"not compiled: {item}")
        return None
    (ctx.rd / "compile.log").write_text(check.log)
    for c in check.compiled:
        if c.missing:
            past = (f" (kdiag's stand-in declarations for the CUDA math libraries' headers cannot check it past "
                    f"there: {c.unchecked})") if c.unchecked else ""  # fmt: skip
            ctx.log.note(f"compile check of {c.source.origin} stopped: {c.missing} is not installed on this machine; "
                         f"the source was not checked past it{past}")  # fmt: skip
        if c.stood_in:
            ctx.log.note(f"{c.source.origin}: {c.stood_in} is not installed on this machine; compiled again with "
                         "kdiag's stand-in declarations for the CUDA math libraries' headers (their handle and status "
                         "types: the source's own code is checked, its calls into those libraries are not)")  # fmt: skip
        if c.timed_out:
            ctx.log.note(f"compile check of {c.source.origin} timed out after {CC.COMPILE_TIMEOUT_S:.0f} s")
    return check


def _compiled(ctx: RunContext, check: CC.Check) -> RunResult:
    """The CUDA sources were compiled: a compile error is the kernel's; a clean compile on a machine
    without a GPU is as far as the check goes (no-result)."""
    bad = check.failed
    what = f"nvcc -cubin for {check.arch} with -Xptxas -v (the submission's CUDA sources)"
    if bad is not None and bad.source.lang == "cpp":
        what = "c++ -fsyntax-only (the submission's host C++ and the bindings load_inline writes for it)"
    rung = L.Rung("compile", what)
    last = bad or check.compiled[-1]
    narrow = AR.static_facts(ctx)
    facts = dataclasses.replace(
        R.base_facts(ctx, rungs=("compile",), compiled=bad is None, rungs_unavailable=() if bad else ("run: no GPU",)),
        target_arch=check.arch,
        **narrow,
    )
    ev = A.evidence(ctx, check.log, None, facts)
    diag = ctx.matcher.diagnose(ev)
    verdict = "fail" if bad is not None else "no-result"
    ctx.log.rung(rung, list(last.argv), "build", last.outcome, verdict, diag, True)
    for item in check.listed:
        ctx.log.note(f"not compiled: {item}")
    res = ctx.finish(verdict, diag, ev)
    if bad is not None:
        prefix = S.LOAD_INLINE_CUDA_PREFIX if bad.source.lang == "cuda" else S.LOAD_INLINE_CPP_PREFIX
        shift = prefix.count("\n") if bad.source.api == "load_inline" else 0
        lines = "#include line" if shift == 1 else "#include lines"
        where = f" (line N there is line N-{shift} of the string: load_inline puts {shift} {lines} first)"
        ctx.log.note(f"{bad.source.origin} written to {bad.file} and compiled there" + (where if shift else ""))
        return dataclasses.replace(res, notes=tuple(ctx.log.notes))
    mode = NR.mode(ctx.log.snapshot, gpu=ctx.gpu)
    static = AR.candidate_note(narrow)
    return dataclasses.replace(
        res,
        checked=(check.summary(), *((static,) if static else ())),
        cannot_run=NR.explain(ctx.log.snapshot, gpu=ctx.gpu),
        cannot_run_mode=mode,
    )


def mutation_outside_contract(
    ctx: RunContext, verdict: str, facts: Any, outcome: Outcome, sizes: list[C.SizeResult]
) -> tuple[str, list[C.SizeResult]]:
    """KernelBench runs the reference first and makes new inputs for every trial, and GPU MODE's runner
    hands the kernel a copy of the data: a kernel whose outputs are right and which also overwrites an
    input passes their check.  The verdict follows the harness (pass); the report says what it did."""
    if verdict != "fail" or not ctx.target.harness_contract or not facts.inputs_mutated:
        return verdict, sizes
    clean = outcome.exit_code == 0 and outcome.signal is None and not outcome.timed_out
    other = (facts.output_unwritten or facts.canary_corrupted or facts.oob_loads or facts.oob_stores
             or facts.compile_failed or facts.kernel_raised or facts.result_missing)  # fmt: skip
    right = all(s.leaves and all(leaf.ok for leaf in s.leaves) and not s.missing and not s.invalid for s in sizes)
    if not clean or other or not sizes or not right:
        return verdict, sizes
    which = ", ".join(facts.mutated_inputs) or "an input"
    ctx.log.note(
        f"the kernel overwrites its inputs ({which}); its outputs match the reference, and the harness's "
        "check never sees it (it runs the reference first, or hands the kernel a copy): pass, as there; "
        "a caller that reuses its inputs would see them changed"
    )
    return "pass", [dataclasses.replace(s, ok=True) for s in sizes]


def _bad_build_call(ctx: RunContext) -> RunResult | None:
    """A load_inline / load call whose arguments Python rejects: the submission's TypeError on any machine,
    before anything is built (diagnose/run/build_calls.py)."""
    t = ctx.target
    try:
        text = t.path.read_text(encoding="utf-8") if t.path is not None else ""
    except (OSError, UnicodeDecodeError):
        return None
    if "load_inline" not in text and "cpp_extension" not in text:
        return None
    bad = BC.bad_calls(text, BC.installed_signatures(ctx.log.snapshot))
    if not bad:
        return None
    first = bad[0]
    log = (f'Traceback (most recent call last):\n  File "{t.path}", line {first.line}, in <module>\n'
           f"TypeError: {first.message}\n")  # fmt: skip
    (ctx.rd / "build_call.log").write_text(log)
    facts = R.base_facts(ctx, rungs=("build-call",), rungs_unavailable=("compile: the call fails first",))
    ev = A.evidence(ctx, log, None, facts)
    diag = ctx.matcher.diagnose(ev)
    rung = L.Rung(
        "build-call", f"{first.api}'s arguments bound against the installed torch's signature (read, not run)"
    )
    ctx.log.rung(rung, [], "build", None, "fail", diag, True)
    ctx.log.note(f"line {first.line}: {first.message} (Python raises it when the submission is imported, on any "
                 "machine; nothing was compiled)")  # fmt: skip
    return ctx.finish("fail", diag, ev)


def _unlinked(ctx: RunContext, check: CC.Check) -> RunResult | None:
    """Sources that each compile, and whose bound function's declaration and definition do not link: the
    module load_inline builds fails to load (``undefined symbol``) on any machine (diagnose/run/ext_symbols.py)."""
    assert ctx.target.path is not None
    found = ES.unlinked(S.extract(ctx.target.path))
    if not found:
        return None
    u = found[0]
    text = f"{u.name}: {u.problem}"
    log = (f"{check.log.rstrip()}\nthe sources compile; linked into one module, {text}: loading it fails with "
           f"'undefined symbol: {u.symbol}'\n")  # fmt: skip
    facts = dataclasses.replace(
        R.base_facts(ctx, rungs=("compile",), compiled=True, extension_unlinked=text), target_arch=check.arch
    )
    ev = A.evidence(ctx, log, None, facts)
    diag = ctx.matcher.diagnose(ev)
    rung = L.Rung("compile", f"nvcc -cubin for {check.arch}, and the bound functions' declarations against their "
                  "definitions (read from the sources)")  # fmt: skip
    last = check.compiled[-1]
    ctx.log.rung(rung, list(last.argv), "build", last.outcome, "fail", diag, True)
    res = ctx.finish("fail", diag, ev)
    return dataclasses.replace(res, checked=(check.summary(),))


def _not_python(ctx: RunContext) -> RunResult | None:
    """A benchmark submission Python cannot parse: the harness's import of it fails on any machine (KernelBench
    records ``compiled: false`` with a ``SyntaxError``); reported in Python's own words, nothing built or run."""
    t = ctx.target
    if t.unparsable is None or t.path is None:
        return None
    where, _, message = t.unparsable.partition(": ")
    number = int(where.removeprefix("line ")) if where.removeprefix("line ").isdigit() else None
    try:
        lines = t.path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    shown = lines[number - 1].strip() if number is not None and 0 < number <= len(lines) else ""
    at = number if number is not None else "?"
    log = f'File "{t.path}", line {at}\n    {shown}\n    ^\n{message}\n'
    (ctx.rd / "parse.log").write_text(log)
    facts = R.base_facts(ctx, rungs=("parse",), rungs_unavailable=("compile: the file does not parse",))
    ev = A.evidence(ctx, log, None, facts)
    diag = ctx.matcher.diagnose(ev)
    ctx.log.rung(
        L.Rung("parse", "the submission parsed as Python (read, not run)"), [], "build", None, "fail", diag, True
    )
    ctx.log.note(f"{t.unparsable}: Python cannot parse the submission, so importing it fails on any machine "
                 "(KernelBench records such a sample as not compiled); nothing was compiled or run")  # fmt: skip
    return ctx.finish("fail", diag, ev)


def run_kernel_target(ctx: RunContext) -> RunResult:
    unparsable = _not_python(ctx)
    if unparsable is not None:
        return unparsable
    bad_call = _bad_build_call(ctx)
    if bad_call is not None:
        return bad_call
    check = _compile_check(ctx)
    if check is not None and not ctx.gpu:
        mark = (len(ctx.log.notes), len(ctx.log.rungs))
        broken = None
        if check.ok and ctx.target.path is not None:
            broken = _unlinked(ctx, check) or SF.after_clean_compile(ctx, check)
        if check.ok and broken is None:
            ran = _run_without_extension(ctx, check)
            if ran is not None:
                return ran
        elif broken is not None or check.failed is not None:
            failed = broken or _compiled(ctx, check)
            return _run_past_failed_build(ctx, check, failed, mark) or failed
    if check is not None and (check.failed is not None or (check.ok and not ctx.gpu)):
        return _compiled(ctx, check)
    checked = (check.summary(),) if check is not None and check.ok else ()
    return NR.as_no_result(_run_fitted(ctx), ctx.log.snapshot, gpu=ctx.gpu, checked=checked)


def _run_without_extension(ctx: RunContext, check: CC.Check) -> RunResult | None:
    """No GPU, and the CUDA sources compiled: a submission that builds its extension only inside a function
    (a lazy load_inline behind a fast path) is run on the CPU with the builds recorded and refused
    (harness/extension_stub.py); one that builds it when imported, and whose forward may take a path without it
    (``forward_may_skip_build``: the harness never calls ``eval()``, say, and the extension serves only eval mode),
    with each build returning a stand-in whose functions refuse to run.  When no build was asked for, what ran is what a GPU would run, and its
    verdict stands (pass, or the submission's own failure); otherwise the run says nothing about the kernel
    and is dropped (``None``: the compile check is the answer, no-result)."""
    t = ctx.target
    if t.path is None or t.kind not in ("kernelbench", "gpumode") or t.uses_triton:
        return None
    found = S.extract(t.path)
    at_import = S.built_at_import(t.path)
    if any(s.api not in ("load_inline", "load") for s in found.sources) or at_import is None:
        return None
    if at_import and not S.forward_may_skip_build(t.path):
        return None  # the forward calls the module it builds on its one path: that needs a GPU
    if _DEVICE_TEST.search(t.path.read_text(encoding="utf-8", errors="replace")):
        return None  # a branch on the device's type: the emulation keeps tensors on the CPU, and says so there
    notes, rungs = len(ctx.log.notes), len(ctx.log.rungs)
    stubbed = dataclasses.replace(ctx, stub_extensions=True, extension_stand_ins=at_import)
    res = NR.as_no_result(_run_fitted(stubbed), ctx.log.snapshot, gpu=False)
    # built at import, a GPU builds it too (it compiled): a stand-in takes its place, and only a call of one of
    # its functions needs the GPU; built inside a function, the build itself is what the run must not reach
    blocked = any(ctx.rd.rglob(ES_USED_FILE if at_import else ES_CALLS_FILE))
    own_failure = res.verdict == "fail" and res.diagnosis is not None and res.diagnosis.category == "kernel-logic"
    if blocked or not (res.verdict == "pass" or own_failure):
        del ctx.log.notes[notes:]
        del ctx.log.rungs[rungs:]
        if blocked and not at_import:
            ctx.log.note("the submission's forward builds its extension (load_inline / load) when it runs: "
                         "without a GPU that build cannot run, so the compile check is as far as kdiag goes")  # fmt: skip
        return None
    if at_import:
        ctx.log.note(
            f"{check.summary()}; the extension is built when the submission is imported, but the forward the "
            "harness runs never calls it (it takes a path without it), so the submission ran on the CPU as it "
            "would on a GPU"
        )
        return dataclasses.replace(res, checked=(check.summary(),), notes=tuple(ctx.log.notes))
    ctx.log.note(
        f"{check.summary()}; the forward never builds it (the load_inline / load call sits in a function the "
        "harness's inputs never reach), so the submission ran on the CPU as it would on a GPU"
    )
    return dataclasses.replace(res, checked=(check.summary(),), notes=tuple(ctx.log.notes))


def _first_error(log: str) -> str:
    """The first error line of a compiler's log, its file named by its base name."""
    line = next((x.strip() for x in log.splitlines() if re.search(r"\berror\b", x)), "")
    return re.sub(r"^\S*/", "", line)[:200]


def _run_past_failed_build(
    ctx: RunContext, check: CC.Check, failed: RunResult, mark: tuple[int, int]
) -> RunResult | None:
    """No GPU, and the submission's extension cannot build (or load) on any machine: a GPU run meets the same
    failure when the submission calls load_inline / load.  Run on the CPU with those calls refused
    (harness/extension_stub.py), as the build fails there: a submission that catches the failure and runs its
    PyTorch path (the try/except fallback model-generated KernelBench code often has), or that never builds it, runs
    here what a GPU runs, and its verdict stands, with a note saying the extension never ran.  Otherwise
    (``None``) the build's failure is the answer."""
    t = ctx.target
    if t.path is None or t.kind not in ("kernelbench", "gpumode") or t.uses_triton or failed.verdict != "fail":
        return None
    found = S.extract(t.path)
    if any(s.api not in ("load_inline", "load") for s in found.sources):
        return None
    text = t.path.read_text(encoding="utf-8", errors="replace")
    if _DEVICE_TEST.search(text) or S.built_at_import(t.path, unguarded=True):
        return None  # a branch on the device's type (the emulation keeps tensors on the CPU), or an import that fails
    notes, rungs = len(ctx.log.notes), len(ctx.log.rungs)
    res = NR.as_no_result(_run_fitted(dataclasses.replace(ctx, stub_extensions=True)), ctx.log.snapshot, gpu=False)
    asked = any(ctx.rd.rglob(ES_CALLS_FILE))
    own_failure = res.verdict == "fail" and res.diagnosis is not None and res.diagnosis.category == "kernel-logic"
    if not (res.verdict in ("pass", "no-result") or (own_failure and not asked)):
        del ctx.log.notes[notes:]
        del ctx.log.rungs[rungs:]
        return None
    added = ctx.log.notes[mark[0] : notes]
    if check.failed is not None:
        why = _first_error(check.log)
    else:  # read from the source: the failure's own note (a module without PyInit_), or symbols that do not link
        why = added[-1] if added else "the functions it binds do not link"
    del ctx.log.notes[mark[0] : notes]
    del ctx.log.rungs[mark[1] : rungs]
    cuda_ok = bool(check.cuda) and all(c.ok for c in check.cuda)
    bindings = check.failed is not None and check.failed.source.lang == "cpp"
    where = "its bindings do not compile" if bindings else "its extension does not build or load"
    checked = f"{check.summary()}; {where}: {why}" if cuda_ok else f"does not build for {check.arch}: {why}"
    if asked and res.verdict == "no-result":
        ctx.log.note(
            f"its extension cannot be built or loaded on any machine ({why}); the submission catches that failure "
            "and goes on without it, on a path that needs a GPU here: the harness measures that path, never the "
            "CUDA kernel"
        )
    elif asked:
        ctx.log.note(
            f"its extension cannot be built or loaded on any machine ({why}); the submission catches that failure "
            "and runs without it, so what ran here (its PyTorch path) is what a GPU runs: the harness measures "
            "that path, never the CUDA kernel"
        )
    else:
        ctx.log.note(
            f"its extension cannot be built or loaded ({why}), and the forward never builds it (the load_inline / "
            "load call sits in a function the harness's inputs never reach), so the submission ran on the CPU as "
            "it would on a GPU"
        )
    return dataclasses.replace(res, checked=(checked,), notes=tuple(ctx.log.notes))


#: under Triton's interpreter, a problem kdiag fitted to its input budget gets this long first (a kernel
#: whose blocks are vectorised takes seconds there; one that loops element by element takes minutes)
INTERPRETER_FIRST_TRY_S = 30.0
#: and, when that try runs out of time, is fitted again to this and run with the full limit
INTERPRETER_RETRY_BYTES = 128 * 2**10


def _declared_bytes(ctx: RunContext) -> int:
    """The bytes of the inputs the last inputs child made (its manifest's tensors, every size)."""
    manifest = K.read_json(ctx, ctx.rd / "inputs" / "manifest.json", "inputs manifest") or {}
    sizes = manifest.get("sizes") or []
    return sum(
        int(t.get("nbytes") or 0)
        for s in sizes
        if isinstance(s, dict)
        for t in (s.get("tensors") or {}).values()
        if isinstance(t, dict)
    )


#: what a run finds that can depend on the shape it ran at (a compile error or a misused API does not)
SHAPE_FINDINGS = frozenset({
    "missing-mask-tail", "oob-global-read", "oob-global-write", "oob-global-access", "oob-shared", "wrong-indexing",
    "wrong-launch-grid", "wrong-result", "shape-not-multiple-of-block",
})  # fmt: skip


def _run_fitted(ctx: RunContext) -> RunResult:
    """A KernelBench problem fitted to what this machine can hold by shrinking more than its batch (``features``,
    ``dim1``: each sample's shape) that then fails is run again with every sample as declared and only the batch
    shrunk, when one sample fits (``harness/sizes.py``): a kernel tuned for the declared shape (a block size that
    divides it, loads left unmasked because it does) can fail at a shape the harness never makes.  When that run
    passes, it is the answer, and the first failure a note: outside the harness's contract."""
    mark, rungs = len(ctx.log.notes), len(ctx.log.rungs)
    first = _run_fitted_once(ctx)
    if first.verdict != "fail" or ctx.gpu or ctx.opts.sizes or ctx.keep_sample_shape:
        return first
    mode = first.diagnosis.failure_mode if first.diagnosis is not None else None
    if ctx.target.kind != "kernelbench" or mode not in SHAPE_FINDINGS:
        return first
    manifest = K.read_json(ctx, ctx.rd / "inputs" / "manifest.json", "inputs manifest") or {}
    default = K.MAX_INPUT_BYTES_INTERPRETER if ctx.target.uses_triton else Z.MAX_INPUT_BYTES_CPU
    budget = Z.sample_budget(manifest.get("resized"), default, Z.MAX_INPUT_BYTES_CPU)
    if budget is None:
        return first
    changed = ", ".join(Z.per_sample_changes(manifest.get("resized")))
    first_notes, first_rungs = ctx.log.notes[mark:], ctx.log.rungs[rungs:]
    title = first.diagnosis.title if first.diagnosis is not None else first.verdict
    del ctx.log.notes[mark:]
    del ctx.log.rungs[rungs:]
    timeout = INTERPRETER_FIRST_TRY_S if ctx.target.uses_triton else ctx.kernel_timeout
    again = _run_kernel_target(
        dataclasses.replace(ctx, keep_sample_shape=True, input_budget=budget, kernel_timeout=timeout)
    )
    if again.verdict == "pass":
        ctx.log.note(
            f"at the size kdiag chose first, which changes each sample's shape ({changed}), the kernel failed "
            f"({title}); with every sample as the problem declares it and only the batch shrunk it passes: the "
            "kernel assumes the declared shape (a shape the harness never makes is outside its contract)"
        )
        return dataclasses.replace(again, notes=tuple(ctx.log.notes))
    ctx.log.notes[mark:] = [
        *first_notes,
        f"a run with every sample as the problem declares it (only the batch shrunk) did not pass either ({again.verdict})",
    ]
    ctx.log.rungs[rungs:] = first_rungs
    return dataclasses.replace(first, notes=tuple(ctx.log.notes))


def _run_fitted_once(ctx: RunContext) -> RunResult:
    """A Triton target under the interpreter, at a size kdiag chose or at the problem's declared size, that runs out
    of time is run again smaller before it is called a hang: a hang does not depend on the size, the interpreter's
    slowness does (inputs that fit the budget can still make an output and a grid the interpreter takes minutes over:
    a tall-skinny matmul's 16384 x 16384 result). A size the user gave (``--size``) is kept as given."""
    slow = ctx.target.uses_triton and not ctx.gpu and not ctx.opts.sizes and ctx.target.kind == "kernelbench"
    if not slow or (ctx.opts.timeout or float("inf")) <= INTERPRETER_FIRST_TRY_S:
        return _run_kernel_target(ctx)
    mark, rungs = len(ctx.log.notes), len(ctx.log.rungs)
    first = _run_kernel_target(dataclasses.replace(ctx, kernel_timeout=INTERPRETER_FIRST_TRY_S))
    timed_out = bool(first.rungs) and first.rungs[-1].timed_out
    resized = any(n.startswith("ran at ") and " instead of " in n for n in first.notes)
    if not (timed_out and (resized or _declared_bytes(ctx) > INTERPRETER_RETRY_BYTES)):
        return first
    # what the first try concluded from its timeout (no probes, a hang) is not the answer: only its size stays,
    # and its rung (its folder stays in the run directory) gives way to the run the verdict comes from
    ctx.log.notes[mark:] = [n for n in ctx.log.notes[mark:] if n.startswith("ran at ")]
    del ctx.log.rungs[rungs:]
    which = "the size kdiag chose" if resized else "the declared size"
    ctx.log.note(
        f"the run at {which} did not finish in {INTERPRETER_FIRST_TRY_S:.0f} s under Triton's "
        f"interpreter (Python runs every program); ran again with its inputs fitted to "
        f"{INTERPRETER_RETRY_BYTES // 2**10} KiB: a hang does not depend on the size, the interpreter's time does"
    )
    return _run_kernel_target(dataclasses.replace(ctx, input_budget=INTERPRETER_RETRY_BYTES))


def _run_kernel_target(ctx: RunContext) -> RunResult:
    inputs_dir = ctx.rd / "children" / "inputs"
    o_in = K.inputs_and_reference(ctx, inputs_dir, ctx.rd / "reference", out_dir=str(ctx.rd / "inputs"))
    if K.harness_broken(o_in):
        raise KdiagError("the harness package cannot be imported by the children (PYTHONPATH)")
    manifest = K.read_json(ctx, ctx.rd / "inputs" / "manifest.json", "inputs manifest")
    # the manifest is written once every input is saved: what the child did after it is the reference's
    if manifest is None:
        return _no_inputs(ctx, o_in, inputs_dir)
    for note in Z.notes(manifest):
        ctx.log.note(note)
    if ctx.target.kind == "kernelbench" and manifest.get("tolerance") == KERNELBENCH_TOLERANCE:
        ctx.log.note("tolerance: KernelBench's own check (atol = rtol = 1e-4 for float32, 1e-2 for float16 and "
                     "bfloat16), as the reference declares no TOLERANCE")  # fmt: skip
    ref = K.reference_manifest(ctx, ctx.rd / "reference", manifest, o_in)

    def attempt(rung: L.Rung, folder: Path, rungs: tuple[str, ...]) -> Step:
        wrap = wrapper(ctx, rung, folder)
        argv, outcome = K.child(
            ctx, "kernel", folder, env=rung.env, wrap=wrap, timeout=ctx.kernel_timeout, out_dir=str(folder)
        )
        if K.harness_broken(outcome):
            raise KdiagError("the harness package cannot be imported by the kernel child (PYTHONPATH)")
        result = K.read_json(ctx, folder / "result.json", f"rung {len(rungs)} result")
        emulated(ctx, (manifest or {}).get("emulated"), (result or {}).get("emulated"))
        sizes = checker.apply(ctx, folder, compare_all(ctx, manifest, result, ref, folder))
        sizes = checker.benchmark_margins(ctx, manifest, sizes)
        extra, triton_text = A.triton_checks(folder, ctx.log)
        facts, numerics = R.kernel_facts(ctx, manifest, result, sizes, rungs=rungs)
        text = K.text(outcome, ("triton", triton_text), ("sanitizer", sanitizer_log(folder)))
        ev = A.evidence(ctx, text, outcome, facts, numerics, extra)
        if BF16_PREFIX + TF32 in ((result or {}).get("emulated") or {}):
            ev = A.with_run(ev, tf32_dot=True)
        unknown = TN.unknown_name(text, TN.installed(ctx.log.snapshot)) if ctx.target.uses_triton else None
        if unknown:
            ev = A.with_run(ev, triton_name_unknown=unknown)
        assert ev.run is not None
        return Step(outcome, ev, R.kernel_verdict(outcome, ev.run, sizes), tuple(argv), state=sizes)

    step, unavailable = climb(ctx, attempt)
    sizes: list[C.SizeResult] = step.state
    assert step.outcome is not None
    ev = A.with_run(step.evidence, rungs_unavailable=unavailable)
    assert ev.run is not None
    verdict, sizes = mutation_outside_contract(
        ctx, R.kernel_verdict(step.outcome, ev.run, sizes), ev.run, step.outcome, sizes
    )
    narrow = AR.static_facts(ctx)
    if narrow:
        ev = A.with_run(ev, **narrow)
    reused = SR.static_facts(ctx.target.path) if ctx.target.uses_triton else {}
    if reused:
        ev = A.with_run(ev, **reused)
    nested = TS.nested_def_facts(ctx.target.path) if ctx.target.uses_triton else {}
    if nested:
        ev = A.with_run(ev, **nested)
    atomics = AU.static_facts(ctx.target.path)
    if atomics:
        ev = A.with_run(ev, **atomics)
    fill = MF.static_facts(ctx.target.path) if ctx.target.uses_triton else {}
    if fill:
        ev = A.with_run(ev, **fill)
    unscaled = OS.static_facts(ctx.target.path) if ctx.target.uses_triton else {}
    if unscaled:
        ev = A.with_run(ev, **unscaled)
    if verdict == "fail":
        ev = AR.sweep(ctx, manifest, sizes, ev)
        ev = TL.check(ctx, manifest, sizes, ev)
    elif verdict == "pass" and narrow:
        ctx.log.note(AR.candidate_note(narrow) or "")
    assert ev.run is not None
    matrix = probe_matrix(ctx, manifest, sizes, ev.run)
    if matrix is not None:
        ev = A.with_run(ev, **P.facts(matrix))
        verdict = harness_contract(ctx, probe_verdict(verdict, matrix), matrix)
    diag = ctx.matcher.diagnose(ev, lead="probe" if verdict == "assumption" else "contract")
    shrunk = shrink_and_repro(ctx, manifest, sizes, matrix, verdict)
    return dataclasses.replace(ctx.finish(verdict, diag, ev, tuple(sizes)), probes=matrix, shrunk=shrunk)
