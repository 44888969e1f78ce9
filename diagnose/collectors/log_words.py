"""What a log's own words say about the failure, beside its error lines: masked rows, and where it began.

Facts that change the check kdiag gives, not the owner it names:

- ``masked``: the log speaks of masked values (``masked``, ``fully masked``) or of a mask on a line
  about an attention or a softmax (an ``attn_mask`` argument, a causal mask); a Triton load's ``mask=``
  alone is a bound, not a masked row.  A wrong value or a NaN from an attention or softmax kernel whose rows
  can be masked comes first from a fully masked row: its maximum is -inf, ``exp(x - max)`` is then
  ``exp(-inf + inf)`` = NaN, and a kernel that uses a finite sentinel (-1e4, -5e4) instead of -inf
  returns a finite row where -inf or 0 is expected.
- ``regression_at``: a release or a commit the log names as the one the failure began with ("after
  upgrading to 2.3.0", "since v1.2", "broken by 63a976ff", "regression in 14.0.1").  A failure that
  began with a change is decided fastest by bisecting between that change and the last one that worked.

- ``tpu``: the log shows the program ran on a TPU (a Mosaic TPU compile, libtpu, a Pallas TPU kernel, a TPU
  device or core name), and shows no CUDA device: CUDA's tools (compute-sanitizer, nvidia-smi, the CUDA
  wheels, a grid's 65535 limit) do not apply there.  "No GPU/TPU found" and a backend 'tpu' that failed to
  initialise are JAX's start-up notes on machines without one, not a TPU.

>>> tpu("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Not implemented")
True
>>> tpu("Pallas TPU reduce kernel generalization gives wrong numerical results?")
True
>>> tpu("No GPU/TPU found, falling back to CPU.") or tpu("Unable to initialize backend 'tpu': UNIMPLEMENTED")
False
>>> tpu("ValueError: Cannot lower pallas_call on platform: gpu. To use Pallas on GPU, install jaxlib GPU. "
...     "To use Pallas on TPU, install jaxlib TPU and libtpu.")
False
>>> tpu("Mosaic failed to compile TPU kernel\\nRuntimeError: CUDA error: an illegal memory access was encountered")
False
>>> masked("AssertionError: fully masked rows must have LSE=-inf")
True
>>> masked("attn_mask=None, key_padding_mask=pad")
True
>>> masked("bitmask of the warp") or masked("x = tl.load(ptr + offs, mask=offs < n)")
False
>>> regression_at("CUDA_ERROR_ILLEGAL_ADDRESS on sm_89 after PtxOp::MulWide (63a976ff)")
'63a976ff'
>>> regression_at("it started failing after upgrading to torch 2.3.0")
'2.3.0'
>>> regression_at("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
>>> regression_at("Please upgrade to CUDA 12.6.3 or newer.") is None
True
>>> regression_at("after 1000000 steps the loss is nan") is None and regression_at("after 5.0 seconds") is None
True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from diagnose.regex_anchor import lowered, start_find

#: the part of a log the words are looked for in
SCAN = 200_000

# a TPU named by what only runs on one: Mosaic's TPU compiler, libtpu, Pallas' TPU backend (`pltpu`,
# `pallas.tpu`, "Pallas TPU"), a TPU device, core, kernel or generation ("TPU v5e", `TpuDevice`, TPU_0)
_TPU = re.compile(
    r"(?i)\blibtpu\b|\btpu_custom_call\b|\bpltpu\b|\bpallas[./ _-]tpu\b|\bmosaic[ _]tpu\b|\bTpuDevice\b"
    r"|\bTPU(?:[ _]?v\d+\w*|[ _](?:kernel|core|chip|device|pod|VM)s?|_\d+)\b|\b(?:cloud|on(?: a)?) TPUs?\b"
)
# JAX's start-up notes on a machine without one, and a line that names a GPU beside the TPU (advice for either:
# "To use Pallas on GPU, install jaxlib GPU. To use Pallas on TPU, install jaxlib TPU and libtpu")
_NO_TPU = re.compile(r"(?i)No GPU/TPU found|backend 'tpu'|\bGPU\b.*\bTPU\b|\bTPU\b.*\bGPU\b")
# a CUDA device in the same log: its tools do apply
_CUDA_DEVICE = re.compile(r"\bCUDA[ _]error\b|\bCUDA_ERROR_|\bcuda\w*Error\w*|\bnvidia-smi\b|\bsm_\d{2,3}\b")


def tpu(text: str) -> bool:
    """Whether the log shows the program ran on a TPU, and shows no CUDA device."""
    head = text[:SCAN]
    if "tpu" not in lowered(head):
        return False
    # a TPU sign is on one line (no pattern of _TPU crosses one), so the kept lines hold one only where the
    # log does: most logs that hold the letters (output, input) hold none, and are not split into lines
    if _TPU.search(head) is None:
        return False
    lines = [line for line in head.split("\n") if not _NO_TPU.search(line)]
    kept = "\n".join(lines)
    return _TPU.search(kept) is not None and _CUDA_DEVICE.search(kept) is None


# "masked" (rows, values, keys) anywhere, or a mask on a line about an attention or a softmax (a Triton
# load's `mask=` alone is a bound, not a masked row)
_MASKED = re.compile(r"(?i)(?<![a-z])(?:fully[- ])?masked(?![a-z])")
_MASK = re.compile(r"(?i)(?<![a-z])mask(?:s|ing)?(?![a-z])")
_ATTENTION = re.compile(r"(?i)softmax|attention|(?<![a-z])attn|(?<![a-z])lse(?![a-z])|logsumexp|fmha|fattn|causal")

# a release or a commit: after words that only say "later" (after, since), a version of three parts
# (14.0.1), one with a `v` (v1.2) or a commit hash (7 to 40 hex digits, at least one a letter and one a
# digit, so that neither a word nor a count reads as one), since "after 5.0 seconds" names no release;
# after words about a change (upgrading to, regression in), a version of two parts (2.3) too
_HASH = r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}"
_TAG = r"(?:[-.]?(?:rc|post|dev|a|b)\d*)?"
_STRICT = r"(?:v\d+(?:\.\d+)*" + _TAG + r"|\d+\.\d+\.\d+(?:\.\d+)*" + _TAG + "|" + _HASH + ")"
_LOOSE = r"(?:v?\d+\.\d+(?:\.\d+)*" + _TAG + "|" + _HASH + ")"
# up to four words (a package's or a change's name) before the release or commit, which may stand in
# parentheses
_NAME = r"\s+(?:[\w:./@+-]+\s+){0,4}?\(?("
#: words one of which every regression pattern needs (a cheap test before the patterns search the log)
_REGRESSION_WORDS = (
    "after",
    "since",
    "introduced",
    "broke",
    "regress",
    "start",
    "began",
    "begin",
    "upgrad",
    "updat",
    "bump",
)
_REGRESSION = (
    re.compile(r"(?i)\b(?:after|since)" + _NAME + _STRICT + r")\)?(?![\w.])"),
    re.compile(
        r"(?i)\b(?:introduced (?:in|by)|broken (?:in|by)|broke (?:in|with)|regress(?:ed|ion)? (?:in|by|since|from)"
        r"|(?:started|began|begins|starts) (?:in|with|failing (?:in|with|after|since))"
        # "upgraded to", not "Please upgrade to 12.6.3", which is advice, not where the failure began
        r"|(?:upgrad|updat|bump)(?:ed|ing) (?:to|from))" + _NAME + _LOOSE + r")\)?(?![\w.])"
    ),
)


def masked(text: str) -> bool:
    """Whether the log speaks of a mask (an attention's or a softmax's masked rows, a masked load)."""
    head = text[:SCAN]
    if "mask" not in lowered(head):
        return False
    if _MASKED.search(head):
        return True
    return any(_ATTENTION.search(line) for line in head.splitlines() if _MASK.search(line))


def regression_at(text: str) -> str | None:
    """The release or commit the log names as the one the failure began with, else None."""
    head = text[:SCAN]
    low = lowered(head)
    if not any(w in low for w in _REGRESSION_WORDS):
        return None
    found = [m for m in (find(head) for find in _regression_finds()) if m]
    return min(found, key=lambda m: m.start()).group(1) if found else None


@functools.cache
def _regression_finds() -> tuple[Callable[[str], re.Match[str] | None], ...]:
    """Each regression pattern's search, tried only where one of the words that start its matches stands
    (:func:`diagnose.regex_anchor.start_find`: the same match, without trying the case-folded leading
    alternation at every place of the log)."""
    return tuple(start_find(p) or p.search for p in _REGRESSION)


#: CPython's str() of a SyntaxError (and IndentationError, TabError) with a file and a line: "%S (%U, line %ld)"
#: (Objects/exceptions.c, SyntaxError_str), as a harness that keeps str(exception) records it
_SYNTAX_STR = re.compile(r"\A[^\n]{1,300} \(((?:[^\s(),]+/)*[^\s(),]+\.py), line (\d+)\)\n")


def syntax_error_at(text: str) -> str | None:
    """``FILE.py, line N`` when the log's first line is a SyntaxError's message as ``str()`` gives it.

    >>> syntax_error_at("invalid syntax (kernel_1.py, line 2)\\nerror_type: CompilationError\\n")
    'kernel_1.py, line 2'
    >>> syntax_error_at("Traceback (most recent call last):\\n") is None
    True
    """
    m = _SYNTAX_STR.match(text)
    return f"{m[1]}, line {m[2]}" if m else None
