"""Numerical comparison failures in logs → :class:`~diagnose.facts.NumericsFacts`.

Reads the messages of ``torch.testing.assert_close`` (and the older
``torch.testing.assert_allclose``), ``numpy.testing.assert_allclose`` (numpy 2.x says
"Max absolute difference among violations", 1.x "Max absolute difference"), and
KernelBench's correctness metadata (``"correctness_issue": "Output mismatch"``,
``"max_difference": ["0.123456", ...]``, ``Output shape mismatch: Expected ..., got ...``).

A real sample (captured here: ``torch.testing.assert_close`` in torch 2.13):

    AssertionError: Tensor-likes are not close!

    Mismatched elements: 4 / 1000 (0.4%)
    Greatest absolute difference: 0.001007080078125 at index (203,) (up to 1e-05 allowed)
    Greatest relative difference: 0.0003331981133669615 at index (3,) (up to 1.3e-06 allowed)

>>> f = parse('''AssertionError: Tensor-likes are not close!
...
... Mismatched elements: 4 / 1000 (0.4%)
... Greatest absolute difference: 0.001007080078125 at index (203,) (up to 1e-05 allowed)
... Greatest relative difference: 0.0003331981133669615 at index (3,) (up to 1.3e-06 allowed)''')
>>> f.mismatch, f.mismatched, f.total, f.fraction, f.max_abs, f.nan_in_output
(True, 4, 1000, 0.004, 0.001007080078125, False)
>>> parse("AssertionError: The values for attribute 'shape' do not match: torch.Size([4, 3]) != torch.Size([4, 4]).").shape_mismatch
True
>>> parse('{"correctness_issue": "Output mismatch", "max_difference": ["0.5", "nan"]}').nan_in_output
True
>>> parse("max_difference: ['0.021200', '0.022654']").max_abs  # a KernelBench record as kdiag reads it
0.022654
>>> parse("all 12 tests passed") is None
True
>>> f = parse("mismatch found! custom implementation doesn't match reference: Number of mismatched elements: 9 "
...           "ERROR AT (0, 0): -inf -2724.0 ERROR AT (0, 1): nan 1.5 ERROR AT (0, 2): 0.5 1.5")
>>> f.shown_pairs, f.shown_nonfinite_new  # GPU MODE's verbose_allclose: received, then expected
(3, 2)
>>> f = parse("Mismatch of dweight at 0: CPU_ref: 8.187102 vs GPU: 4.125000")  # llm.c: expected, then received
>>> f.mismatch, f.shown_pairs, f.passed_block_size
(True, 1, None)
>>> f = parse("Error! Matrix[1918976]=0.00000000, ref=13.65435410 error term is > 1.000000E-06")  # CUDA Samples
>>> f.mismatch, f.shown_pairs, f.shown_zero_new, f.max_abs
(True, 1, 1, 13.6543541)
>>> parse("ERROR - results miscompared.\\nID,M,N,K,SplitK-Slices,Parallel-SplitK,Runtime").mismatch  # CUTLASS examples
True
>>> parse("All results match for block_size=512.\\n\\nMismatch of dbias at 0: CPU_ref: 1.125 vs GPU: 3.5").passed_block_size
512

``max_abs``/``max_rel`` are the largest finite figures printed (None when all were NaN).
``nan_in_output`` means a NaN took part in the comparison (a NaN difference, numpy's "nan
location mismatch", torch's "including N nan comparisons" with N > 0); the message does not
say which side held it.
"""

from __future__ import annotations

import math
import re

from diagnose.collectors.gate_words import gate
from diagnose.comparisons import path_comparison_results, zero_input_results
from diagnose.facts import NumericsFacts

_NUM = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf)"
_HINTS = (
    "not close",
    "Not equal to tolerance",
    "Mismatched elements",
    "Output mismatch",
    "max_difference",
    "max_diff=",
    "do not match",
    "shape mismatch",
    "mismatch)",
    "exceeded the margin of error",
    "Arrays are not",
    "nan location mismatch",
    "doesn't match reference",
    " did not match ",
    "CPU_ref: ",
    "error term is > ",
    "results miscompared",
    "Numerical mismatch",
    "Number of mismatched elements:",
    "INCORRECT_",
)
_MISMATCH_HEADS = (
    "Tensor-likes are not close!",
    "Scalars are not close!",
    "Tensor-likes are not equal!",
    "Scalars are not equal!",
    "Not equal to tolerance",
    "Arrays are not almost equal",
    "Arrays are not equal",
    "Output mismatch",
    "exceeded the margin of error",
    "Mismatched elements:",
    # GPU MODE's check_implementation (problems' utils.py: match_reference), in popcorn's test.N.error
    "custom implementation doesn't match reference",
    # the same check's own first line (verbose_allclose: ``f"Number of mismatched elements: {len(mismatched)}"``), which
    # popcorn prints alone under a ranked or secret run's "failed testing:"
    "Number of mismatched elements:",
    # CUTLASS's examples, after their host reference check (cutlass::reference::host::TensorEquals) fails:
    # ``std::cout << "ERROR - results miscompared.\n";``
    "ERROR - results miscompared",
    # kernel-generation harnesses' own verdict on a comparison: "Numerical mismatch: max_error = 4.79e+00"
    "Numerical mismatch",
)
#: GPU MODE's count of the elements its check found outside the tolerance (no total printed)
_GPU_MODE_COUNT = re.compile(r"Number of mismatched elements: (\d+)")
_ELEMENTS = re.compile(r"Mismatched elements: (\d+) / (\d+)")
_OLD_TORCH = re.compile(
    r"found (\d+) element\(s\) \(out of (\d+)\) whose difference\(s\) exceeded the margin of error"
    r"(?: \(including (\d+) nan comparisons\))?(?:\. The greatest difference was " + _NUM + r")?"
)
#: the largest differences a comparison states: torch.testing's and its users' ("Greatest absolute difference: X"),
#: and flashinfer-bench's correctness figures (Correctness.max_absolute_error / max_relative_error, and the shorter
#: keys of its users' records, max_abs_error / max_rel_error), as a record's flattened ``key: value`` line or JSON
_ABS = re.compile(
    r"(?:(?:Greatest absolute difference|Max absolute difference(?: among violations)?): "
    r"|\bmax_abs(?:olute)?_error[\"']?\s*[:=]\s*[\"']?)" + _NUM
)
_REL = re.compile(
    r"(?:(?:Greatest relative difference|Max relative difference(?: among violations)?): "
    r"|\bmax_rel(?:ative)?_error[\"']?\s*[:=]\s*[\"']?)" + _NUM
)
_KB_MAX = re.compile(r"""["']?max_difference["']?\s*:\s*\[([^\]]*)\]""")
_KB_MAX_DIFF = re.compile(r"max_diff=" + _NUM)
_MAX_ERROR = re.compile(r"\bmax_error\s*[=:]\s*" + _NUM)
_SHAPE = re.compile(
    r"The values for attribute 'shape' do not match|\(shapes \([^)]*\), \([^)]*\) mismatch\)|Output shape mismatch"
)
#: torch.testing's dtype check, and torch.isclose / allclose refusing two dtypes (its TORCH_CHECK prints the
#: ScalarType names: captured with torch 2.13.0, ``torch.allclose(half, float)`` raises "Half did not match Float")
_SCALAR_TYPE = r"(?:Half|Float|Double|BFloat16|Byte|Char|Short|Int|Long|Bool|Complex(?:Half|Float|Double)|Float8_\w+)"
_DTYPE = re.compile(
    r"The values for attribute 'dtype' do not match|\b" + _SCALAR_TYPE + r" did not match " + _SCALAR_TYPE + r"\b"
)
_NAN_LOCATION = "nan location mismatch"
#: flashinfer-bench's EvaluationStatus for an output its check rejected (flashinfer_bench/data/trace.py:
#: INCORRECT_NUMERICAL, INCORRECT_SHAPE, INCORRECT_DTYPE), as a status value or the head of its error text; not a
#: count of them in a summary ("INCORRECT_NUMERICAL: 3", "INCORRECT_NUMERICAL=0")
_FIB_STATUS = re.compile(r"\bINCORRECT_(NUMERICAL|SHAPE|DTYPE)\b(?![\"']?\s*[:=|,]?\s*\d)")
#: GPU MODE's verbose_allclose (reference-kernels' problems' utils.py) prints up to max_print mismatched elements as
#: ``ERROR AT {index}: {received} {expected}`` (some problems: ``ERROR at``, or ``received=... expected=...``)
_PAIR = re.compile(r"ERROR (?:AT|at) \(([\d, ]*)\): (?:received=)?" + _NUM + r",? (?:expected=)?" + _NUM)
#: llm.c's validate_result (dev/cuda/common.h, and the ports that copy it) prints each element past its tolerance,
#: which already allows the output dtype's rounding, as ``Mismatch of {name} at {i}: CPU_ref: {expected} vs GPU:
#: {received}`` (``printf("Mismatch of %s at %d: CPU_ref: %f vs GPU: %f\\n", ...)``), up to ten before it exits
#: the same check passing for one launch configuration of a sweep (llm.c's dev/cuda harnesses print ``All results match
#: for block_size=%d.`` after each block size that validate_result passed, and exit at the first that fails)
_PASSED_BLOCK_SIZE = re.compile(r"\bresults? match(?:es)? for block_?size\s*[=:]?\s*(\d+)", re.I)
_CPU_REF_PAIR = re.compile(r"Mismatch of \S+ at \d+: CPU_ref: " + _NUM + r" vs GPU: " + _NUM)
#: the CUDA Samples' matrixMul check (``printf("Error! Matrix[%05d]=%.8f, ref=%.8f error term is > %E\\n", i, h_C[i],
#: ..., eps)``) and the hand-written GEMMs that copy it (``Matrix[%05d] = %.8f, ref = %.8f``, a ``row=%d,col=%d,``
#: before it, "Error - too big inaccuracy!"): the device's value, then the reference's, past the tolerance
_MATRIX_REF_PAIR = re.compile(
    r"\bMatrix\[\s*\d+\s*\]\s*=\s*" + _NUM + r",\s*ref\s*=\s*" + _NUM + r"\s+error term is > " + _NUM
)
#: each printed form of a value beside its reference: the words a line must hold, the pattern, the groups of the
#: device's value and of the reference's, whether one pair alone says the check failed (GPU MODE's lines are
#: counted, their failure is said by the lines around them), and whether the pair's distance is kept
_PAIR_FORMS = (
    ("ERROR ", _PAIR, 2, 3, False, False),
    ("CPU_ref: ", _CPU_REF_PAIR, 2, 1, True, False),
    ("error term is > ", _MATRIX_REF_PAIR, 1, 2, True, True),
)


def _num(s: str) -> float | None:
    try:
        return float(s.strip().strip("'\""))
    except ValueError:
        return None


def _bigger(a: float | None, b: float | None) -> float | None:
    """The larger of two figures, ignoring NaN (a NaN figure sets ``nan_in_output`` instead)."""
    if b is None or math.isnan(b):
        return a
    if a is None:
        return b
    return max(a, b)


def _is_nan(s: str | None) -> bool:
    v = _num(s) if s is not None else None
    return v is not None and math.isnan(v)


def _zero_input(text: str) -> NumericsFacts | None:
    """A call on an all-zero array whose printed result is not all zeros (:mod:`diagnose.comparisons`):
    a mismatch against the one value the result can have; ``total`` is the input's element count when the
    call states it.

    >>> f = _zero_input(">>> cp.concatenate([cp.zeros((2**31+1,), dtype='b')])\\narray([0, 0, ..., 0, 1], dtype=int8)")
    >>> f.mismatch, f.total, f.lines
    (True, 2147483649, (1, 2))
    """
    found = zero_input_results(text, limit=10)
    if not found:
        return None
    totals = [n for _, _, n, _ in found if n is not None]
    lines = sorted({n for result, _, _, call in found for n in (call, result)})
    return NumericsFacts(lines=tuple(lines), mismatch=True, total=max(totals) if totals else None)


def _compiled_path(text: str) -> NumericsFacts | None:
    """One call printed as it is and through a compiler (``jax.jit(f)(x)``) with different results
    (:mod:`diagnose.comparisons`).  Not a ``mismatch`` against a reference: neither path is the reference,
    and the rules that read it (rules/numerics/) weigh the compiler first.

    >>> f = _compiled_path("print(f(x))\\n# False\\nprint(jax.jit(f)(x))\\n# True")
    >>> f.mismatch, f.compiled_path, f.compiled_path_exact, f.lines
    (False, 'jax.jit', True, (3,))
    """
    found = path_comparison_results(text)
    if not found:
        return None
    return NumericsFacts(
        lines=tuple(n for n, _, _, _ in found),
        compiled_path=found[0][2],
        compiled_path_exact=all(exact for _, _, _, exact in found),
    )


def _printed_only(text: str) -> NumericsFacts | None:
    """A mismatch the log shows only as printed results: a call on zeros, a call compiled and not, a result
    that is Inf/NaN everywhere it was printed, or an evaluation record's verdict alone."""
    return _zero_input(text) or _compiled_path(text) or _nonfinite_result(text) or _verdict_only(text)


#: an evaluation record with no error and no figures, as kdiag reads one (diagnose.inputs._evaluation): its flags
#: alone, ``key: value`` per line
_FLAGS_ONLY = re.compile(r"\A(?:(?:compiled|runnable|correct|correctness|passed): (?:True|False)\n)+\Z")
_VERDICT_FALSE = re.compile(r"(?m)^(?:correct|correctness|passed): False$")
_NOT_RUN = re.compile(r"(?m)^(?:compiled|runnable): False$")


def _verdict_only(text: str) -> NumericsFacts | None:
    r"""A record that says the kernel ran and its output failed the harness's check, and nothing else: a
    mismatch of unknown size (the line that says so is the evidence).

    >>> _verdict_only("correct: False\n").mismatch
    True
    >>> _verdict_only("compiled: False\ncorrect: False\n") is None
    True
    """
    if not _FLAGS_ONLY.match(text) or _NOT_RUN.search(text):
        return None
    m = _VERDICT_FALSE.search(text)
    return None if m is None else NumericsFacts(mismatch=True, lines=(text.count("\n", 0, m.start()) + 1,))


# one element of a printed array that is not a finite number, as each language's repr spells it: Python and NumPy
# "inf", "-inf", "nan" (NumPy's str() "inf" with no comma, "nan" likewise), torch and JAX the same inside
# "tensor([...])" / "Array([...])", Julia "Inf", "NaN", "Inf32", "NaN16"
_NONFINITE = r"[-+]?(?:inf|nan|Inf|NaN)(?:16|32|64)?\b"
# an array repr whose elements are all such (the middle elided as "..." by NumPy, torch and JAX when it is long)
_NONFINITE_ARRAY = re.compile(
    r"\[\s*" + _NONFINITE + r"(?:(?:[ \t]*,\s*|\s+)(?:" + _NONFINITE + r"|\.\.\.|\u2026))+[ \t]*,?[ \t]*\]"
)
_NONFINITE_HINTS = ("inf, ", "nan, ", "inf inf", "nan nan", "Inf, ", "NaN, ", "inf,", "nan,")
_has_nonfinite_hint = gate(_NONFINITE_HINTS)


def _nonfinite_result(text: str) -> NumericsFacts | None:
    """A result printed as an array of three or more elements, every one Inf or NaN, the first such.  No
    reference is printed beside it, so it is no ``mismatch``: a result that is not a number anywhere it was shown
    is the failure the log states.

    >>> _nonfinite_result("# [inf, inf, inf, ...]").printed_nonfinite
    3
    >>> _nonfinite_result("tensor([nan, nan, nan, nan], device='cuda:0')").lines
    (1,)
    >>> _nonfinite_result("[inf inf inf\\n inf inf]").printed_nonfinite  # NumPy's str(), wrapped
    5
    >>> _nonfinite_result("[inf, 1.0, inf]") is None, _nonfinite_result("[nan, nan]") is None
    (True, True)
    """
    if not _has_nonfinite_hint(text):
        return None
    for m in _NONFINITE_ARRAY.finditer(text):
        count = len(re.findall(_NONFINITE, m.group(0)))
        if count >= 3:
            line = text.count("\n", 0, m.start()) + 1
            return NumericsFacts(lines=(line,), printed_nonfinite=count)
    return None


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_hint = gate(_HINTS)


#: CUTLASS's examples and profiler: the verdict of their check against a reference, and the problem it ran
_DISPOSITION_FAILED = re.compile(r"(?m)^[ \t]*Disposition:[ \t]*(?:Failed|Incorrect)\b")
_PROBLEM_SIZE = re.compile(r"(?m)^[ \t]*Problem Size:[ \t]*(\d+(?:x\d+){1,3})\b")
_MNK_FLAGS = re.compile(r"--m=(\d+)\s+--n=(\d+)\s+--k=(\d+)")


def _disposition_failed(text: str) -> NumericsFacts | None:
    r"""CUTLASS's "Disposition: Failed": a mismatch against its reference, with the problem size where the log gives
    it (the run's own "Problem Size:" line, else the last --m/--n/--k before the verdict).

    >>> f = _disposition_failed("$ ./48_gemm --m=1024 --n=2048 --k=1024\n  Disposition: Failed\n")
    >>> f.mismatch, f.checker, f.problem_size, f.lines
    (True, 'CUTLASS', '1024x2048x1024', (2,))
    """
    m = _DISPOSITION_FAILED.search(text)
    if m is None:
        return None
    after = _PROBLEM_SIZE.search(text, m.end())
    before = list(_MNK_FLAGS.finditer(text, 0, m.start()))
    size = after[1] if after else ("x".join(before[-1].groups()) if before else None)
    line = text.count("\n", 0, m.start()) + 1
    return NumericsFacts(mismatch=True, checker="CUTLASS", problem_size=size, lines=(line,))


def parse(text: str) -> NumericsFacts | None:
    """Numerical comparison failures of ``text``, or ``None``."""
    if "Disposition:" in text:
        found = _disposition_failed(text)
        if found is not None:
            return found
    if not _has_hint(text):
        return _printed_only(text)
    mismatch = shape = dtype = nan = False
    mismatched = total = None
    max_abs = max_rel = None
    lines: list[int] = []
    shown = shown_new = shown_zero = 0
    fib = "INCORRECT_" in text and _FIB_STATUS.search(text) is not None  # its figures are read beside its verdict
    for ln, line in enumerate(text.splitlines(), 1):
        if len(line) > 100000 or (
            not any(h in line for h in _HINTS)
            and "difference" not in line
            and "ERROR " not in line
            and not (fib and "_error" in line)
        ):
            continue
        hit = False
        if any(h in line for h in _MISMATCH_HEADS):
            mismatch = hit = True
        m = _ELEMENTS.search(line)
        if m and mismatched is None:
            mismatched, total = int(m[1]), int(m[2])
        m = _GPU_MODE_COUNT.search(line) if mismatched is None else None
        if m:
            mismatched = int(m[1])
        m = _OLD_TORCH.search(line)
        if m:
            mismatch = hit = True
            if mismatched is None:
                mismatched, total = int(m[1]), int(m[2])
            if m[3] and int(m[3]) > 0:
                nan = True
            if m[4]:
                max_abs, nan = _bigger(max_abs, _num(m[4])), nan or _is_nan(m[4])
        if "difference" in line or (fib and "_error" in line):  # flashinfer-bench's figures beside its verdict only
            m = _ABS.search(line)
            if m:
                max_abs, nan, hit = _bigger(max_abs, _num(m[1])), nan or _is_nan(m[1]), True
            m = _REL.search(line)
            if m:
                max_rel, nan, hit = _bigger(max_rel, _num(m[1])), nan or _is_nan(m[1]), True
        if "difference" in line:
            m = _KB_MAX.search(line)
            if m:
                for item in m[1].split(","):
                    max_abs, nan = _bigger(max_abs, _num(item)), nan or _is_nan(item)
                mismatch = hit = True
        if "max_error" in line:
            m = _MAX_ERROR.search(line)
            if m:
                max_abs, nan, hit = _bigger(max_abs, _num(m[1])), nan or _is_nan(m[1]), True
        if "max_diff=" in line:
            m = _KB_MAX_DIFF.search(line)
            if m:
                max_abs, nan, mismatch, hit = _bigger(max_abs, _num(m[1])), nan or _is_nan(m[1]), True, True
        if _SHAPE.search(line):
            shape = mismatch = hit = True
        if _DTYPE.search(line):
            dtype = mismatch = hit = True
        if _NAN_LOCATION in line:
            nan = mismatch = hit = True
        if "INCORRECT_" in line:
            for m in _FIB_STATUS.finditer(line):
                kind = m[1]
                shape, dtype = shape or kind == "SHAPE", dtype or kind == "DTYPE"
                mismatch = hit = True
        for words, pattern, got_at, want_at, says_failed, keeps_distance in _PAIR_FORMS:
            if words not in line:
                continue
            for m in pattern.finditer(line):
                got, want = _num(m[got_at]), _num(m[want_at])
                if got is None or want is None:
                    continue
                if says_failed:
                    mismatch = hit = True
                shown += 1
                shown_new += not math.isfinite(got) and math.isfinite(want)
                shown_zero += got == 0 and math.isfinite(want) and want != 0
                if keeps_distance:
                    max_abs = _bigger(max_abs, abs(got - want))
        if hit:
            lines.append(ln)
    if not lines:
        return _printed_only(text)
    passed = _PASSED_BLOCK_SIZE.search(text) if mismatch and "atch for block" in text else None
    return NumericsFacts(
        passed_block_size=int(passed[1]) if passed else None,
        lines=tuple(lines),
        mismatch=mismatch,
        mismatched=mismatched,
        total=total,
        fraction=(mismatched / total) if mismatched is not None and total else None,
        max_abs=max_abs,
        max_rel=max_rel,
        nan_in_output=nan,
        shape_mismatch=shape,
        dtype_mismatch=dtype,
        shown_pairs=shown,
        shown_nonfinite_new=shown_new,
        shown_zero_new=shown_zero,
    )
