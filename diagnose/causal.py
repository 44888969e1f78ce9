"""Causal chains: a failure printed after the failure that caused it is a symptom, not the diagnosis.

Some failures are the consequence of an earlier one in the same log, whatever tool prints them:

- **compile failure → image load failure**: NVRTC, nvcc, ptxas or libNVVM fail, and the program goes on
  to load the image that was never built ("device kernel image is invalid", "no kernel image is
  available", "invalid device function", "a PTX JIT compilation failed").  The compile error says why.
- **context creation failure → no usable device**: creating the CUDA context fails (out of memory,
  cuInit), and the framework then reports that it found no device ("no supported devices found for
  platform CUDA", "No visible GPU devices").  The context failure says why.
- **refused launch → memory error**: the runtime refuses a launch (invalid configuration, too many
  resources: compute-sanitizer's ``Program hit cudaErrorInvalidConfiguration ... on CUDA API call to
  cudaLaunchKernel``, a framework's launch check), and a later kernel then reads or writes out of bounds.  The
  kernel that never ran left its output unwritten, and the launch code's sizes are wrong for this input:
  the refused launch is the earlier, deciding failure; the access report follows from the same input.
- **library initialisation failure → internal CHECK**: a CUDA library (cuBLAS, cuDNN) cannot create its
  handle, and the framework's code that needed it then aborts on an internal consistency check (XLA's
  ``Check failed: stream->parent()->GetBlasGemmAlgorithms(...)`` in its GEMM autotuner).  The CHECK is not a
  compiler bug: the library's failure says why.

When both ends of a chain matched and the cause is printed first (or on the same line), the
consequence's findings rank below the cause's: the earlier, cause-bearing line decides, and the
symptom stays among the alternatives with a note saying which line it follows from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diagnose.evidence import Evidence
from diagnose.regex_literals import compiled
from diagnose.rule_model import Rule

if TYPE_CHECKING:
    from diagnose.matcher import Finding

#: the tools whose failure means "the device code was not built" (catalogue families' ``tool``)
COMPILER_TOOLS = frozenset({"nvrtc", "nvcc", "ptxas", "libnvvm", "llvm-nvptx", "nvlink"})
#: failures to load device code: the catalogue's families and the rules that read the same CUDA errors
IMAGE_LOAD = frozenset(
    {
        "cudart-kernel-image-invalid",
        "cudart-no-kernel-image-for-device",
        "cudart-invalid-device-function",
        "cudart-ptx-jit-failed",
        "cuda-no-kernel-image",
        "cuda-invalid-device-function",
        "cuda-kernel-image-invalid-runtime-compiled",
    }
)
#: failures to create a context on a device that is there
CONTEXT_CREATION = frozenset({"context-creation-out-of-memory", "xla-cuinit-failed"})


def _family(rule: Rule) -> str:
    """A rule's family: its id, less the ``-as-<category>`` of a family's candidate rules."""
    for cat in ("-as-kernel-logic", "-as-environment", "-as-runtime-assumption"):
        if rule.id.endswith(cat):
            return rule.id[: -len(cat)]
    return rule.id


def _compile_failure(rule: Rule, evidence: Evidence) -> bool:
    """A finding about a failed compile: a compiler rule on a log with compile errors (not a resource report of
    a compile that worked), or a family of a compiler's error messages."""
    if "compiler" in rule.requires:
        return evidence.compiler is not None and (evidence.compiler.error_count or 0) > 0
    return "family" in rule.tags and bool(COMPILER_TOOLS & set(rule.tags))


def _image_load(rule: Rule) -> bool:
    return _family(rule) in IMAGE_LOAD


def _context_creation(rule: Rule, evidence: Evidence | None = None) -> bool:
    return _family(rule) in CONTEXT_CREATION


def _no_device(rule: Rule) -> bool:
    return rule.failure_mode == "no-gpu-visible" and not _context_creation(rule)


#: CUDA statuses of a launch the runtime refused before the kernel ran
REFUSED_LAUNCH = frozenset({"cudaErrorInvalidConfiguration", "cudaErrorLaunchOutOfResources"})


def _refused_launch(rule: Rule, evidence: Evidence) -> bool:
    """A finding about a launch the runtime refused (a CUDA rule, not one that reads a sanitizer record)."""
    cuda = evidence.cuda
    return (
        cuda is not None
        and cuda.error in REFUSED_LAUNCH
        and "cuda" in rule.requires
        and "sanitizer" not in rule.requires
        and rule.category != "kernel-logic"
    )


#: the sanitizer rules that decide from a record of one out-of-bounds, null or misaligned access
ACCESS_REPORT = ("sanitizer-oob-", "sanitizer-null-", "sanitizer-misaligned-")


def _access_report(rule: Rule) -> bool:
    """A finding that blames the kernel for a memory access a sanitizer recorded (not the API error it printed)."""
    return rule.category == "kernel-logic" and _family(rule).startswith(ACCESS_REPORT)


def _library_init(rule: Rule, evidence: Evidence | None = None) -> bool:
    """A finding that a CUDA library could not initialise (its handle, its context): the mode its rule names."""
    return rule.category == "environment" and rule.failure_mode == "library-init-failed"


#: a framework's internal consistency check that aborted the process (absl/glog CHECK in XLA's sources)
INTERNAL_CHECK = frozenset({"xla-check-failed"})


def _internal_check(rule: Rule) -> bool:
    return _family(rule) in INTERNAL_CHECK


@dataclass(frozen=True)
class Chain:
    name: str
    causes: Callable[[Rule, Evidence], bool]
    follows: Callable[[Rule], bool]
    cause_text: str  # what the cause is, for the note on the consequence


CHAINS: tuple[Chain, ...] = (
    Chain("compile-then-load", _compile_failure, _image_load, "the compile error"),
    Chain("context-then-no-device", _context_creation, _no_device, "the failed context creation"),
    Chain("refused-launch-then-access", _refused_launch, _access_report, "the refused launch"),
    Chain("library-init-then-check", _library_init, _internal_check, "the library's failed initialisation"),
)


def anchor(rule: Rule, evidence: Evidence) -> int | None:
    """The first log line a rule's match rests on: the first line its text patterns hit, else the first
    line of the facts of the sources it requires (None: no line)."""
    lines = evidence.log.text.splitlines()
    best: int | None = None
    for pattern in rule.text_patterns:
        try:
            rx = compiled(pattern)
        except Exception:
            continue
        hit = next((i for i, line in enumerate(lines, 1) if rx.search(line)), None)
        if hit is not None and (best is None or hit < best):
            best = hit
    if best is not None:
        return best
    for source in rule.requires:
        if source in ("concept", "log"):
            continue
        facts = getattr(evidence, source, None)
        found = [n for n in getattr(facts, "lines", ()) if n > 0]
        if found:
            return min(found)
    # a rule that decides from the tools' messages (rules/concept/): the first line of a message family its
    # condition names
    concept = evidence.concept
    if "concept" in rule.requires and concept is not None:
        # not strict: an Evidence record written before family_lines existed has none
        pairs = zip(concept.families, concept.family_lines, strict=False)
        named = [n for fam, n in pairs if n > 0 and f'"{fam}"' in rule.when]
        if named:
            return min(named)
    return None


def order(rules: Sequence[Rule], findings: Sequence[Finding], evidence: Evidence) -> list[Finding]:
    """``findings`` (one per rule of ``rules``, ranked), with each chain's consequences ranked below its
    cause when the cause is printed first; the ranking is otherwise unchanged."""
    by_id = {r.id: r for r in rules}
    out = list(findings)
    changed = False
    for chain in CHAINS:
        causes = [f for f in out if chain.causes(by_id[f.rule], evidence)]
        if not causes:
            continue
        cause = causes[0]  # the best-ranked cause
        at = anchor(by_id[cause.rule], evidence)
        if at is None:
            continue
        for i, f in enumerate(out):
            rule = by_id[f.rule]
            if not chain.follows(rule) or f.priority < cause.priority:
                continue
            line = anchor(rule, evidence)
            if line is None or line < at:
                continue
            note = f"line {line} follows from {chain.cause_text} at line {at}: ranked below it"
            out[i] = f.with_fact(("caused_by", note), priority=cause.priority - 1)
            changed = True
    if changed:  # stable: findings that were not moved keep their order
        out.sort(key=lambda f: (f.priority, f.specificity, f.confidence), reverse=True)
    return out
