"""A finding's confidence: the rule's calibrated precision, moved by what this input's evidence says.

The calibrated confidence (:mod:`diagnose.calibration`) says how often the rule was right on the
labelled corpus.  One input can carry more or less than the rule's typical case; the adjustment is
small, bounded and additive, and each step is named so a reader can see why:

- **decisive values present** (``+0.04`` each, at most ``+0.08``): the numbers the cause is decided
  from are in the log and the rule reads their source: requested vs limit (shared memory, registers,
  threads, grid, memory), required vs present compute capability, required vs found version, a
  sanitizer report's record (what was accessed, where).
- **kernel-logic, but the failing code is not the user's** (``-0.08`` in a library's or generated
  code, unless a sanitizer record names the failing access in that kernel: then it is the library's
  defect, not a doubt about the category; ``-0.20`` when a compiler crashed or failed its own
  assertion): the author of the code is not the reader, and a crashing compiler is a compiler bug
  (``environment``).
- **the values contradict the answer** (``-0.20``, and at most :data:`OVER_EVERY_CEILING`): a
  ``runtime-assumption`` answer (this GPU's limit) when the shared memory requested is over every GPU's
  limit: the device it ran on is not the cause, and the message cannot tell the kernel's configuration
  (fixed, wrong on every GPU: the kernel's) from an input past the sizes the kernel supports (the
  caller's), so the answer becomes a candidate beside that check.
- **nothing to stand on** (``-0.05``): a log of at most two lines with no frame, kernel name or source
  line, read by a rule that decides from text alone.

The sum is kept within ``[MAX_DOWN, MAX_UP]`` and the result within ``[0.05, 0.99]``.

One bound raises: a compiler's refusal of the submission's own source, compiled by ``kdiag run`` for a
named GPU, says at least :data:`OWN_COMPILE_FLOOR` (the run, not the log's wording, says whose code it is).

One bound is not a step: a **bare status** (a log of at most two lines with no frame, kernel name or
source line whose failure is a CUDA status that fits several owners, "invalid configuration argument",
"an illegal memory access", "unspecified launch failure", or a sanitizer report's header with no
kernel, address or allocation) says at most :data:`BARE_STATUS_CEILING`: the status names what
failed, not whose code or input made it fail.  So does a problem-size answer to an out-of-memory
message that gives no device total or free memory (XLA's and TensorFlow's allocators print the same
message whether the problem is too large or another tenant holds the memory), or whose start-up figures
(TensorFlow's free memory before it reserved its pool) leave a share of the device to other processes.
An answer those figures rule out (other tenants, when they held at most a tenth of the device) is no
candidate at all (:func:`ruled_out`).  A **launch refused inside a
library's own code** (invalid configuration, too many resources, at a site :mod:`~diagnose.collectors.location`
places in a library or framework op, outside the library's own test suite) says at most
:data:`LIBRARY_LAUNCH_CEILING` when the log prints no input size, and always for too many resources: the
library chose the launch, so the size (or, for registers, this GPU's budget) decides between its launch
computation and an input or device past its contract.  A **library's device assertion with no caller in
the log** (an input check inside a library kernel, ATen's ``index out of bounds``, and not one Python frame)
says at most :data:`CALLER_UNSEEN_CEILING`: the check names a bad index, not whether the application's
code built it or its input carried it.  Ranking is
unchanged (rules rank by priority and specificity first); the adjusted value is what the report
prints and what the abstention threshold sees.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

RAISE = 0.04
MAX_UP = 0.08
LIBRARY = -0.08
TOOLCHAIN = -0.20
BARE = -0.05
CONTRADICTED = -0.20
MAX_DOWN = -0.25
FLOOR, CEILING = 0.05, 0.99
BARE_STATUS_CEILING = 0.6
LIBRARY_LAUNCH_CEILING = 0.45
OVER_EVERY_CEILING = 0.45
CALLER_UNSEEN_CEILING = 0.8
ANSWERS_FROM = 0.5  # the answer threshold (diagnose.matcher.MIN_CONFIDENCE)
OWN_COMPILE_FLOOR = 0.6
#: kdiag run's targets whose compile rung builds the submission's own source
OWN_SOURCE_TARGETS = frozenset({"kernelbench", "gpumode", "cuda-file", "kernel-module"})

#: CUDA statuses that the kernel's code, its launch code and its input all produce alike
SEVERAL_OWNERS = frozenset(
    {
        "cudaErrorInvalidConfiguration",
        "cudaErrorIllegalAddress",
        "cudaErrorLaunchFailure",
        "cudaErrorMisalignedAddress",
        "cudaErrorInvalidValue",
        "cudaErrorLaunchOutOfResources",
    }
)

#: decisive value pairs, by the source that carries them: (source, (symbols that must all be present), what)
DECISIVE: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("concept", ("concept_requested", "concept_limit"), "requested vs limit"),
    ("concept", ("concept_need_cc", "concept_have_cc"), "required vs present compute capability"),
    ("concept", ("concept_need_version", "concept_have_version"), "required vs found version"),
    ("oom", ("oom_requested_bytes", "oom_total_bytes"), "requested vs total device memory"),
    ("triton", ("triton_required", "triton_limit"), "required vs limit"),
    ("compiler", ("compiler_smem_bytes", "compiler_smem_limit_bytes"), "shared memory vs limit"),
    ("sanitizer", ("sanitizer_first_kind", "sanitizer_kernel"), "a sanitizer record naming the kernel"),
    ("env", ("env_gpu_arch", "env_supported_archs"), "the GPU's arch vs the build's"),
)


def _present(value: Any) -> bool:
    return value is not None and value != "" and value != () and value is not False


_READS: dict[tuple[str, tuple[str, ...], tuple[str, ...]], frozenset[str]] = {}


def _sources(rule: Any) -> frozenset[str]:
    """The evidence sources a rule reads (required, or named by its condition); kept per rule."""
    from diagnose.evidence import symbol_source

    requires = tuple(getattr(rule, "requires", ()) or ())
    symbols = tuple(getattr(rule, "symbols", ()) or ())
    key = (str(getattr(rule, "id", "")), requires, symbols)
    if key not in _READS:
        _READS[key] = frozenset(requires) | {src for s in symbols if (src := symbol_source(s))}
    return _READS[key]


def steps(rule: Any, context: Mapping[str, Any]) -> list[tuple[float, str]]:
    """The adjustments that apply to ``rule`` on this input, each with its reason."""
    out: list[tuple[float, str]] = []
    reads = _sources(rule)
    over_every = _smem_over_every_gpu(context)
    contradicted = rule.category == "runtime-assumption" and over_every is not None
    if contradicted:
        out.append((CONTRADICTED, f"{over_every:.0f} bytes of shared memory is over every GPU's limit"))
    up = MAX_UP if contradicted else 0.0  # values that contradict the answer raise nothing
    for source, symbols, what in DECISIVE:
        if source in reads and all(_present(context.get(s)) for s in symbols) and up < MAX_UP:
            out.append((RAISE, what))
            up += RAISE
    kind = context.get("location_kind")
    if rule.category == "kernel-logic":
        if context.get("location_compiler_crash"):
            out.append((TOOLCHAIN, f"a compiler crashed ({context.get('location_library') or 'toolchain'})"))
        elif kind in ("library", "generated") and not _sanitizer_record(reads, context):
            out.append((LIBRARY, f"the failing code is {kind} ({context.get('location_library')})"))
    bare = (context.get("log_line_count") or 0) <= 2 and not kind and not context.get("py_frame_count")
    if bare and reads <= {"log"}:
        out.append((BARE, "a one-line log with no frame"))
    return out


#: the figures that tell a problem too large for the device from memory other tenants hold
_OOM_FIGURES = (
    "oom_total_bytes",
    "oom_free_bytes",
    "oom_process_bytes",
    "oom_other_process_bytes",
    "oom_free_at_start_bytes",
    "oom_pool_limit_bytes",
    "concept_limit",
    "concept_over_every_gpu",
)


def own_source_compile(rule: Any, context: Mapping[str, Any]) -> str | None:
    """Why a compiler message is the submission's own, or None: ``kdiag run`` compiled the target's own
    source for a named GPU and the compiler refused it there (no library's or generated code in between).
    The owner a log leaves open (the user's code, a library's, the toolchain's) is then decided by the run,
    whatever the rule's record on logs whose code nobody could see."""
    if rule.category not in ("kernel-logic", "runtime-assumption") or "compiler" not in _sources(rule):
        return None
    target, arch = context.get("run_target"), context.get("run_target_arch")
    if target not in OWN_SOURCE_TARGETS or not arch or context.get("location_kind") in ("library", "generated"):
        return None
    if context.get("location_compiler_crash"):
        return None
    return f"kdiag run compiled the {target} submission's own source for {arch} and the compiler refused it"


def bare_status(rule: Any, context: Mapping[str, Any]) -> str | None:
    """What makes this input a bare status (see the module's docstring), or None."""
    reads = _sources(rule)
    if rule.failure_mode == "oom-problem-size" and not any(_present(context.get(s)) for s in _OOM_FIGURES):
        return "an out-of-memory message with no device total or free memory, which other tenants print alike"
    started = _present(context.get("oom_free_at_start_bytes"))
    if rule.failure_mode == "oom-problem-size" and started and not context.get("oom_others_ruled_out"):
        return "the device's free memory at the start leaves a share held by other processes"
    if (context.get("log_line_count") or 0) > 2 or context.get("location_kind") or context.get("py_frame_count"):
        return None
    if any(source in reads and all(_present(context.get(s)) for s in symbols) for source, symbols, _ in DECISIVE):
        return None
    if "sanitizer" in reads and reads <= {"sanitizer", "log"} and context.get("sanitizer_first_kind"):
        record = ("sanitizer_kernel", "sanitizer_address", "sanitizer_allocation_address", "sanitizer_source")
        return None if any(_present(context.get(s)) for s in record) else "a sanitizer header with no kernel or address"
    if (
        reads <= {"cuda", "log"}
        and context.get("cuda_error") in SEVERAL_OWNERS
        and not context.get("cuda_device_assert")
    ):
        return f"the status {context.get('cuda_error')} alone, which several owners produce"
    return None


#: launches the runtime refused (the launch itself returns these)
REFUSED_LAUNCH = frozenset({"cudaErrorInvalidConfiguration", "cudaErrorLaunchOutOfResources"})


def library_launch(context: Mapping[str, Any]) -> str | None:
    """Why a refused launch inside a library's own code is open between owners (see the module's
    docstring), or None."""
    error = context.get("cuda_error")
    if error not in REFUSED_LAUNCH or context.get("location_kind") != "library" or context.get("location_test_suite"):
        return None
    library = context.get("location_library") or "a library"
    if error == "cudaErrorLaunchOutOfResources":
        return (
            f"a launch {library} chose needs more registers than this GPU gives a block: its launch bounds or this GPU"
        )
    if (context.get("concept_max_elements") or 0) > 0 or (context.get("concept_printed_size") or 0) > 0:
        return None
    return f"a launch {library} chose was refused and the log prints no input size: its launch or the input"


def caller_unseen(context: Mapping[str, Any]) -> str | None:
    """Why a library kernel's device assertion leaves its cause open (see the module's docstring), or None."""
    if not context.get("cuda_device_assert") or context.get("location_kind") != "library":
        return None
    if context.get("py_frame_count"):
        return None
    library = context.get("location_library") or "a library"
    return f"an input check in {library}'s kernel fired and no frame shows which code called it with that index"


def _sanitizer_record(reads: frozenset[str], context: Mapping[str, Any]) -> bool:
    """A sanitizer record of the failing access in the kernel it names: a defect in that kernel, whoever wrote
    it (a library's kernel is the library's bug, "upgrade or report upstream"), so no library penalty."""
    return "sanitizer" in reads and all(_present(context.get(s)) for s in ("sanitizer_first_kind", "sanitizer_kernel"))


def _smem_over_every_gpu(context: Mapping[str, Any]) -> float | None:
    """The shared memory requested, when the collectors found it over what any GPU allows per block
    (``concept_over_every_gpu``, ``triton_over_every_gpu``; else None)."""
    if context.get("concept_resource") == "shared-memory" and context.get("concept_over_every_gpu"):
        value = context.get("concept_requested")
        if isinstance(value, int | float):
            return float(value)
    if context.get("triton_over_every_gpu"):
        value = context.get("triton_required")
        if isinstance(value, int | float):
            return float(value)
    return None


def adjusted(rule: Any, context: Mapping[str, Any]) -> float:
    """The rule's confidence on this input (see the module's docstring)."""
    return assess(rule, context)[0]


def assess(rule: Any, context: Mapping[str, Any]) -> tuple[float, str | None]:
    """The rule's confidence on this input, and how the evidence moved it from the calibrated value
    (None when it did not): ``0.89 calibrated; -0.20 663808 bytes ... over every GPU's limit``."""
    moves = steps(rule, context)
    value = apply(rule.confidence, moves)
    if value >= ANSWERS_FROM > rule.confidence and (getattr(rule, "authored_confidence", None) or 1.0) < ANSWERS_FROM:
        # a rule its author and its measurement both keep under the answer threshold says the evidence it reads
        # does not decide; the values it reads being present does not make them decide
        value = rule.confidence
        moves.append((0.0, f"at most {value:.2f}: a rule that does not decide alone"))
    why_own = own_source_compile(rule, context) if value < OWN_COMPILE_FLOOR else None
    if why_own:
        value = OWN_COMPILE_FLOOR
        moves.append((0.0, f"at least {OWN_COMPILE_FLOOR:.2f}: {why_own}"))
    why_bare = bare_status(rule, context) if value > BARE_STATUS_CEILING else None
    if why_bare:
        value = BARE_STATUS_CEILING
        moves.append((0.0, f"at most {BARE_STATUS_CEILING:.2f}: {why_bare}"))
    why_open = library_launch(context) if value > LIBRARY_LAUNCH_CEILING else None
    if why_open:
        value = LIBRARY_LAUNCH_CEILING
        moves.append((0.0, f"at most {LIBRARY_LAUNCH_CEILING:.2f}: {why_open}"))
    over_every = _smem_over_every_gpu(context) if rule.category == "runtime-assumption" else None
    if over_every is not None and value > OVER_EVERY_CEILING:
        value = OVER_EVERY_CEILING
        moves.append(
            (0.0, f"at most {OVER_EVERY_CEILING:.2f}: no GPU fits it, so its configuration or its input decides")
        )
    why_caller = caller_unseen(context) if value > CALLER_UNSEEN_CEILING else None
    if why_caller:
        value = CALLER_UNSEEN_CEILING
        moves.append((0.0, f"at most {CALLER_UNSEEN_CEILING:.2f}: {why_caller}"))
    if not moves:
        return value, None
    return value, f"{rule.confidence:.2f} calibrated; " + "; ".join(f"{d:+.2f} {why}" if d else why for d, why in moves)


def apply(confidence: float, moves: Iterable[tuple[float, str]]) -> float:
    delta = sum(d for d, _ in moves)
    delta = min(MAX_UP, max(MAX_DOWN, delta))
    if delta == 0:
        return confidence
    return round(min(CEILING, max(FLOOR, confidence + delta)), 3)


def ruled_out(rule: Any, context: Mapping[str, Any]) -> str | None:
    """Why the input's own figures rule a matched rule's answer out, or None: memory other processes held is
    not what ran out when the log's figures show they held at most a tenth of the device (the device's free
    memory about equal to its total when the job started, or this process holding nine tenths of it); a fault
    in the reader's kernel is not what a sanitizer report shows when its kernel was launched from inside one of
    NVIDIA's closed libraries (``sanitizer_launch_library``): the library's bug, or the caller's arguments
    breaking its contract, are what remain."""
    if rule.failure_mode == "oom-other-process" and context.get("oom_others_ruled_out"):
        return "the log's memory figures show other processes held at most a tenth of the device"
    library = context.get("sanitizer_launch_library")
    if (
        rule.category == "kernel-logic"
        and library
        and "kb" not in (getattr(rule, "requires", None) or ())
        # an address one high bit past a buffer is another mapping's (a peer GPU's, a virtual-memory pool's): the
        # caller's code set that buffer up, and the caller's code is what a kernel-logic answer then points at
        and not context.get("sanitizer_allocation_high_bit_bytes")
    ):
        # NVIDIA's closed code: no kernel of the reader's failed, and no one but NVIDIA can change the library's
        return f"the sanitizer's host frames show {library} launched the faulting kernel: the kernel is the library's"
    return None


def held_by_input(findings: Iterable[Any], context: Mapping[str, Any]) -> bool:
    """Whether the input's own figures hold these findings under the answer threshold, whatever their rules say: a
    this-GPU reading of a request over every GPU's limit (:data:`OVER_EVERY_CEILING`), a launch a library chose
    (:data:`LIBRARY_LAUNCH_CEILING`). The candidates stay open, and no resemblance of words
    (:mod:`diagnose.text_prior`) answers in their place."""
    findings = list(findings)
    if not findings:
        return False
    if library_launch(context):
        return True
    return _smem_over_every_gpu(context) is not None and any(f.category == "runtime-assumption" for f in findings)
