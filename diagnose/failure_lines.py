"""Lines that say something failed, in the shapes tools print failures in.

:func:`failure_lines` finds them in a log; :mod:`diagnose.failure` uses them when no collector fact
already says the run failed.  The patterns follow the families of how tools print a failure, not
any one report's wording:

- a logging severity of error or above: ``error:``, ``ERROR:``, ``[ERROR]``, glog/absl ``E1203`` and
  ``F1203`` lines (also inside a prefix, ``[rank0]:[E1203 ...]``; a FATAL one also without its date,
  ``F external/.../cuda_dnn.cc:1011] ...``, or after TensorFlow's date, ``2021-...: F tensorflow/...]``), c10's ``[E ProcessGroupNCCL.cpp:475]``,
  TensorRT's ``[E]`` and ``Error Code 10: Internal Error (...)``, ONNX Runtime's ``[E:onnxruntime:...]``,
  ``ERROR 05-05 17:03:35`` / ``- ERROR -`` / ``| ERROR |`` (Python logging, loguru), ``level=error``
  (logfmt), ``CRITICAL:``, fatal-error reports (``LLVM Fatal Error while ...``, ``FATAL ERROR in ...``);
  NCCL's ``NCCL WARN`` (its level for warnings *and* errors) counts when the line names a failure;
- an exception: a Python ``Traceback`` header (also IPython's ``NameError   Traceback (most recent call
  last)``), a bare exception name (``XlaRuntimeError``), an exception line whose class is not just
  ``...Error`` (``pynvml.NVMLError_NotSupported: ...``, ``triton.runtime.errors.OutOfResources: ...``) or is
  private (``torch._C._LinAlgError: ...``),
  pytest's ``E   AssertionError`` explanation lines and ``path.py:942: CompilationError`` location lines, a C++ ``terminate called`` / ``what():`` / ``std::bad_alloc``,
  ``Check failed:`` (glog CHECK), XLA's ``RET_CHECK failure``, C ``assert()`` / Rust ``assertion ... failed``,
  ggml's ``GGML_ASSERT: file:line: cond`` (no "failed"), an unhandled exception, an exception printed as its
  repr alone on a line (``OutOfResources(576, 512, 'tensor memory')``, ``RuntimeError('...')``);
- a process that died or stopped: signals (``SIGSEGV``, ``Segmentation fault``, ``Aborted``), a line ending in
  ``Aborting.``, cuda-gdb's ``CUDA Exception: Warp Misaligned Address`` (or the exception's name alone) and its backtrace frame inside a kernel
  (``#0  kern<<<(54,1,1),(32,1,1)>>> () at k.cu:172``), the signal handlers'
  reports (Open MPI's ``*** Process received signal ***`` block, ``Signal code: Integer divide-by-zero``),
  glibc's heap checks
  (``free(): invalid pointer``, ``double free or corruption``, ``stack smashing detected``), a non-zero
  exit status or error code, the GPU driver's ``Xid`` / ``fallen off the bus``, ROCm's ``Memory access fault``;
- a library status enum other than success (``CUDNN_STATUS_BAD_PARAM``, ``NVRTC_ERROR_COMPILATION``,
  ``hipErrorNoBinaryForGpu``, ``ncclUnhandledCudaError``, ``CUFFT_INTERNAL_ERROR``), an absl status code as XLA
  and TensorFlow print it (``INTERNAL: ...``, ``NOT_FOUND: ...``, ``PERMISSION_DENIED: ...``) and TensorFlow
  1.x's names of them (``Resource exhausted: ...``, ``... failed: Invalid argument: ...``), and a LAPACK-style routine's nonzero
  info (cuSOLVER's devInfo, MAGMA, LAPACK: ``magma_dpotrf_gpu returned error 3``), at any severity;
- a container engine's refusal (the docker CLI's ``Error response from daemon: ...``, runc's ``error during
  container init: ...`` / ``error running hook #1: ...``), GNU ld's ``cannot find -lcudart``, the check macro
  most CUDA code copies (``GPUassert: <error text> <file> <line>``), LLVM's crash output in the compilers that
  embed it (``UNREACHABLE executed at f.cpp:12!``, ``PLEASE submit a bug report to ...``, ``Stack dump:``);
- a line that ends, after a colon, in a CUDA runtime error's own text (``cudaGetErrorString``, the table
  of :mod:`diagnose.collectors.cuda_errors`): Thrust's ``system_error`` and CUB print what failed and the
  text alone (``after cub_::DeviceRadixSort::SortPairs(1): invalid argument``);
- a compute-sanitizer record of an error kind its documentation lists (``Invalid __global__ read``,
  ``Misaligned Shared or Local Address``, ``Leaked 64 bytes``, ``Program hit ... (error 1)``, ...);
- a compiler diagnostic quoted without its ``error:`` (nvcc's ``no instance of overloaded function ...``,
  libNVVM's IR parse error ``<unnamed> (81, 19): parse expected comma after load's type``);
- a figure stated over a device's limit, at any severity (NCCL's INFO ``ncclMaxSharedMem 82240 exceeds
  device/fn maxSharedMem 79856``), unless the line says what was done instead (clamped, fell back);
- a failed statement (``cudaMemcpy failed: invalid argument``, ``Build failed.``), a library check's report
  (RAPIDS' ``RMM failure at: file:193: ...``, ``cuDF failure at: file:12: ...``), a linker error;
- a test framework's failure report (``FAILED``, ``3 failed``, ``test_x failure``, gtest's ``file:12: Failure``,
  numpy/torch testing's ``Mismatched elements: 3 / 1024``, ``Not equal to tolerance``, ``Tensor-likes are not
  close``);
- a hang: ``timed out``, a watchdog that fired, a collective timeout, a detected deadlock;
- a printed NaN, a reduction printed with an infinite result (``jnp.max(v[:8193]) -> -inf``), a run that says
  its own output is wrong, a result printed beside the value the text says
  was expected (``expected 2 but got 1``), a comment that is only the reporter's verdict (``f(x).sum()  # BAD``,
  ``# => BAD``, ``// wrong!``), a check of agreement answered False (``torch.allclose(out, ref)`` then ``False``,
  ``issorted(x)`` then ``false``, ``allclose: False``); a printed array alone says nothing about what it should be;
- a check that says the values differ (``Mismatch of dbias at 0``, ``Result verification failed at element 3``,
  CUTLASS's ``Disposition: Incorrect``), and printed values that say it without a word
  (:mod:`diagnose.comparisons`): a reference and a device value that differ, a difference above the tolerance
  printed beside it, a call on an all-zero array whose result is not all zeros, one call printed compiled
  (``jax.jit(f)(x)``) and plain with different results, one expression typed at a prompt for a value and for a
  variant of it (``logprobs`` / ``logprobs_fused``) with different results, a row the program flags (``*****``), a results table's
  cell marked failed beside its value (``XX 0.979`` among ``ok 1.000`` cells, ``8160 ✗``), a table row whose value is
  under the row's own ``floor`` column, a table of errors against a reference whose share of elements over a
  tolerance (``elements >1e-2: 31%``) or high percentile of the relative error is beyond any rounding, a metric at exactly 0 beside the same metric of a reference;
- an exception raised and swallowed (CPython's unraisable hook: ``Exception ignored in: ...``), Numba's typing
  message without its head (``Unknown attribute 'to_device' of type Module(...)``), a ``Fail to <verb> ...:
  <reason>`` statement, a reference check that ``miscompared``, an all-ones sentinel printed as a process id
  (:mod:`diagnose.sentinels`);
- a load or an initialisation said not to work (``could not load NVML library``, ``Impossible to initialize
  nvidia nvml``, ``libcudnn.so.8 ... dont load``);
- a reporter's sentence that states the failure in words, in the words of the taxonomy's failure modes: a hang
  (``the kernel hung intermittently``, ``the testing freezes in ...``), memory that grows while the program runs
  (``GPU memory usage grows continually over time``, ``a serious memory leak``), values said to be wrong by what
  computes them (``computes incorrect values``), NaNs in a result (``Q gradient: NaNs!``), results that differ
  between runs (``the print is different each time``), an integer overflow named as the finding, an issue title
  its template tags ``[BUG]``.

A matching line is still healthy when it counts zero (``0 errors``, ``errors: 0``, ``failed: 0``, ``0/1 runs
failed``), states a
measured error (``max abs error: 1e-7``), is a test's ``PASSED`` line, or is a warning / INFO line that only
mentions the word (``W1203``, ``UserWarning``, ``NCCL INFO ... failed``).

>>> [n for n, _ in failure_lines("step 1 loss 0.3\\nE1203 10:00:00.1 12 a.cc:3] Check failed: ok\\n")]
[2]
>>> failure_lines("========= ERROR SUMMARY: 0 errors\\nmax abs error 1e-07\\n")
[]
>>> [n for n, _ in failure_lines("0/1 runs failed.\\n2/3 tests failed\\nrank 0/4 failed: NCCL error\\n")]
[2, 3]
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from diagnose import regex_code
from diagnose.comparisons import (
    below_floor_lines,
    block_comparison_lines,
    comparison_lines,
    device_comparison_lines,
    error_table_lines,
    flagged_row_lines,
    marked_cell_lines,
    over_tolerance_lines,
    path_comparison_lines,
    rust_assert_eq_lines,
    variant_comparison_lines,
    verdict_false_lines,
    zero_input_results,
    zero_metric_lines,
)
from diagnose.cuda_error_table import tables as cuda_error_tables
from diagnose.failure_line_table import (  # the patterns, a table of their own (the rule cache reads it)
    _FATAL_NO_DATE,
    _FLAGS,
    _LIMIT_EXCEEDED,
    _NCCL_WARN_FAILURE,
    _PATTERNS,
    _SOLVER_INFO,
    START,
    single_line_pattern,
)
from diagnose.log_records import logged_traceback_spans, low_severity, reported_exception
from diagnose.sentinels import sentinel_pid_lines

#: keyword -> the indices of the patterns it selects
_BY_KEYWORD: dict[str, tuple[int, ...]] = {}
for _i, (_kws, _) in enumerate(_PATTERNS):
    for _k in _kws:
        _BY_KEYWORD[_k] = (*_BY_KEYWORD.get(_k, ()), _i)
#: failure lines recognised by their start, with no keyword: glog E/F lines, pytest's ``E   `` lines
_LINE_STARTS = re.compile(r"(?:^|[\[\s:])[EF]\d{4}\s+\d\d:\d\d:\d\d|^E {2,}\S|" + _FATAL_NO_DATE, re.MULTILINE)
#: what every match of :data:`_LINE_STARTS` holds (``E1203``, ``E   ``, ``F ``): a text without it has none of
#: them, and this search (led by a character set) costs a fraction of that one's, which tries three branches at
#: every position
_MAY_START = re.compile(r"[EF][\d ]").search


@functools.cache
def _pattern(index: int) -> re.Pattern[str]:
    """One pattern of :data:`_PATTERNS`, compiled once (a line is tried against the ones its keywords
    select: combining each selection into one regex compiled a new regex for nearly every log)."""
    return regex_code.compile_pattern(
        _PATTERNS[index][1], _FLAGS
    )  # from the code kept with the rule base, where there is one


def _selected(indices: frozenset[int], line: str) -> bool:
    return any(_pattern(i).search(line) for i in sorted(indices))


#: on a line that matched, these say it is healthy after all
_HEALTHY_LINE = re.compile(
    r"""
      # 0 errors, 0 failed; not an instance numbered 0 that failed ("Execution of replica 0 failed: ...").  The
      # look-behinds follow "a 0 starts here" (the same place, so the same test): at most places of a line the
      # one test fails, and the fourteen are not tried
      \b(?=0\s)(?<!replica\ )(?<!device\ )(?<!rank\ )(?<!gpu\ )(?<!task\ )(?<!worker\ )(?<!node\ )(?<!process\ )
      (?<!thread\ )(?<!ordinal\ )(?<!partition\ )(?<!shard\ )(?<!stream\ )(?<![:\#])
      0\s+(?:errors?|failed|failures|hazards)\b
    | \b(?:errors?|failures|failed)\s*[:=]\s*0\b(?!\.\d*[1-9])          # errors: 0, failed=0
    | (?<![\w./])0\s*/\s*\d+\s+(?:runs?|tests?|cases?|checks?|trials?|jobs?|samples?|iterations?|steps?|kernels?
      |benchmarks?|problems?|files?)\s+(?:failed|errors?|failures)\b                   # 0/1 runs failed (XLA's runner)
    | \berror_count\s*[:=]\s*0\b
    | \bno\ errors?\b | \bwithout\ errors?\b | \b(?:none|nothing)\ failed\b
    | \berror\s*[:=]\s*[-+]?(?:\d*\.\d|\d+[eE][-+]?\d|0\b|inf\b|none\b)  # a measured error: "max abs error: 0.0"
    | \bError:\s*(?:none|None)\b
    | \b(?:0|no|zero|without)\s+(?:wrong|incorrect)\s+(?:answers?|results?|outputs?)\b  # 0 wrong results
    # a negative test that got the error it provokes: "Successfully caught expected error: ... exceeds device limits"
    | \b(?:caught|raised|got|threw|throws|raises)\s+(?:the\s+|an?\s+)?expected\s+(?:errors?|exceptions?)\b
    | (?<!un)\bexpected\s+(?:errors?|exceptions?)\s+(?:was\s+|were\s+)?(?:caught|raised|thrown)\b
    # TensorFlow's graph optimizer (Grappler) on a pass that failed: the pass is skipped and the graph runs as it was
    # ("E0000 ... meta_optimizer.cc:967] layout failed: INVALID_ARGUMENT: ...", older "Not able to apply optimizer")
    | \bmeta_optimizer\.cc:\d+\]\s+(?:\w+\s+failed:|Not\ able\ to\ apply\ optimizer\b)
    # an attempt that failed and is retried another way on the same line (conda's solver: "Solving environment: failed
    # with initial frozen solve. Retrying with flexible solve.", "failed with repodata from current_repodata.json, will
    # retry with next repodata source."): the retry's outcome is on a later line
    | \bfailed\b[^\n]{0,80}?\b(?:[Rr]etrying\ with|will\ retry\ with)\b
    # a check that ends saying it passed ("Precision test with FP edge cases (NaN, Infinity) passed.")
    | ^(?!.*\b(?:[Ff]ail|FAIL|[Ee]rror|ERROR))(?=.*\b(?:[Tt]ests?|[Cc]hecks?|[Vv]erification|[Vv]alidation
      |[Cc]orrectness|[Pp]recision|[Cc]onsistency)\b).*\bpassed[.!]?\s*$
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: lines in which an error word is not about this run (an echoed option, a test's PASSED line)
_NOT_ABOUT_RUN = re.compile(
    r"\b(?:PASSED|XFAIL|XPASS|SKIPPED|xfailed|xpassed)\b"
    # an expected failure in a runner's own words: LLVM lit's and kyua's "Expectedly Failed", unittest's "OK
    # (expected failures=1)", Catch2's "1 failed as expected" (lit's "Unexpectedly Failed"/"Failed" still count)
    r"|\b[Ee]xpectedly\s+[Ff]ailed\b|^\s*OK\s+\(.*\bexpected\s+failures=\d"
    r"|^(?!.*\bfailed\b(?!\s+as\s+expected)).*\bfailed\s+as\s+expected\b"
    # TorchDynamo's reasons for compiling a function again, numbered frame/compile ("- 0/0: tensor 'x' size mismatch
    # at index 0. expected 3, actual 4" under "triggered by the following guard failure(s):", and a recompile limit's
    # "last reason: 0/7: ..."): a guard that no longer holds for new inputs, which recompiles, not a failure
    r"|^\s*-\s+\d+/\d+:\s|\blast\s+reason:\s*\d+/\d+:\s"
)

#: words that mark a failure even on a warning-level line (NCCL prints its errors at WARN)
_STRONG = re.compile(
    r"Segmentation fault|core dumped|terminate called|\bFAILED\b|\b(?:fatal|Fatal|FATAL)\b"
    r"|" + _NCCL_WARN_FAILURE + "|" + _LIMIT_EXCEEDED + "|" + _SOLVER_INFO
)


@functools.cache
def _keywords() -> Any:
    """Every keyword of :data:`_BY_KEYWORD` in one automaton (pyahocorasick): one pass over a log finds
    them all.  Each keyword maps to (its length, the patterns it selects)."""
    import ahocorasick

    auto = ahocorasick.Automaton()
    for k, idx in _BY_KEYWORD.items():
        if k != START:
            auto.add_word(k, (len(k), idx))
    auto.make_automaton()
    return auto


def _candidate_lines(text: str) -> dict[int, set[int]]:
    """Start offset of each line that holds a keyword -> the patterns its keywords select."""
    lower = text.lower()
    starts: dict[int, set[int]] = {}
    # keywords hold no newline, and the automaton reports them in the order they end: the line of one is
    # the line of the one before, or a later one
    line_end = -1
    selected: set[int] = set()
    for end, (size, idx) in _keywords().iter(lower):
        if end > line_end:
            i = end - size + 1
            start = lower.rfind("\n", max(line_end, 0), i) + 1
            line_end = lower.find("\n", end)
            if line_end < 0:
                line_end = len(lower)
            selected = starts.setdefault(start, set())
        selected.update(idx)
    for m in _LINE_STARTS.finditer(text) if _MAY_START(text) else ():
        starts.setdefault(text.rfind("\n", 0, m.start() + 1) + 1, set()).update(_BY_KEYWORD[START])
    return starts


@functools.cache
def _searches() -> tuple[Callable[[str], bool], Callable[[str], bool], Callable[[str], bool]]:
    """The searches of :data:`_HEALTHY_LINE`, :data:`_NOT_ABOUT_RUN` and :data:`_STRONG`, each answered by the
    pattern's anchor test (:mod:`diagnose.regex_anchor`: a line without the literals that start every match is
    not searched), made once."""
    from diagnose.regex_anchor import hit_test

    return hit_test(_HEALTHY_LINE), hit_test(_NOT_ABOUT_RUN), hit_test(_STRONG)


#: Python logging's default format (``LEVEL:logger:message``) at a failure's level with a message that states no
#: failure: a library that logs its routine steps at CRITICAL or ERROR ("CRITICAL:root:Registering device global rank
#: 1: data_rank = 0"), the level being all that looks wrong; any word of trouble in the message keeps it a failure
_PY_LOG_ROUTINE = re.compile(
    r"^\s*(?:CRITICAL|ERROR):[\w.]*:(?!.*(?:\b(?:fail|error|exception|cannot|can't|could\ not|unable|invalid|denied"
    r"|abort|crash|time[ds]?\ ?out|refus|missing|exceed|mismatch|unsupported|not|no|corrupt|illegal|empty|exit"
    r"|kill|terminat|segmentation|fault|nan|inf|overflow|wrong|lost|broken|bad|stop|dead|panic|traceback)"
    r"|[!?]))",
    re.IGNORECASE,
)


def _healthy(line: str) -> bool:
    """A failure-looking line that is healthy after all: a zero count, a PASSED line, a warning."""
    healthy_line, not_about_run, strong = _searches()
    if healthy_line(line) or not_about_run(line):
        return True
    if line.lstrip()[:1] in ("C", "E") and _PY_LOG_ROUTINE.match(line):
        return True
    if reported_exception(line):  # a report's field that holds what failed to load: the report went on
        return True
    return (low_severity(line) and not strong(line)) or _note(line)


def _note(line: str) -> bool:
    """A line the message catalogue knows as a tool's note, printed when nothing failed whatever its log level
    (``severity: note``: XLA's "Delay kernel timed out" timing note at E)."""
    from diagnose.catalogue import default_catalogue

    return default_catalogue().note_line(line)


def is_failure_line(line: str) -> bool:
    """``line`` reports a failure and is not one of the healthy look-alikes."""
    if len(line) > 2000:
        return False
    found = single_line_pattern().search(line) or _printed_results(line, 1) or _cuda_error_tails(line, 1)
    return bool(found) and not _healthy(line)


def _cuda_error_tails(text: str, limit: int) -> list[tuple[int, str]]:
    """Lines that end, after a colon, in a CUDA runtime error's text (``...SortPairs(1): invalid argument``),
    with something before the colon: how Thrust's ``system_error`` and CUB print a failed call."""
    out: list[tuple[int, str]] = []
    for m in cuda_error_tables().tail_re.finditer(text.lower()):
        start = text.rfind("\n", 0, m.start()) + 1
        line = text[start : m.end()]
        if line[: m.start() - start].strip() and len(line) <= 2000 and not _healthy(line):
            out.append((text.count("\n", 0, start) + 1, line.strip()))
            if len(out) >= limit:
                break
    return out


def _zero_input_lines(text: str, limit: int) -> list[tuple[int, str]]:
    return [(n, line) for n, line, _, _ in zero_input_results(text, limit)]


#: a Python traceback's source line of an ``assert`` statement with the caret marker Python 3.11 and later print
#: under the failing expression (``^^^^``, ``~~~^^^``; a C compiler's caret is one ``^``, then ``~``): the assert
#: raised, though a pasted log may keep that frame without the ``AssertionError`` line after it
_ASSERT_MARKED = re.compile(r"^([ \t]*assert\b[^\n]*)\n[ \t]*~*\^{2,}[~^]*[ \t]*$", re.MULTILINE)


#: pytest's mark of the line that raised (">" in its first column, the source line after it): an ``assert`` statement
#: or a call of an assertion helper (``torch.testing.assert_close(``, ``np.testing.assert_allclose(``,
#: ``self.assertEqual(``) there is a failed check, even where the report keeps no "E" line
_PYTEST_MARKED = re.compile(
    r"^>[ \t]+((?:assert\b|[\w.]*\bassert_\w+\(|[\w.]*\bassert(?:Equal|AlmostEqual|True|False|AllClose|Close)\w*\()[^\n]*)$",
    re.MULTILINE,
)


def _assert_marker_lines(text: str, limit: int) -> list[tuple[int, str]]:
    r"""An ``assert`` statement a traceback marks as the expression that raised (:data:`_ASSERT_MARKED`), or an
    assertion pytest marks with ">" (:data:`_PYTEST_MARKED`).

    >>> _assert_marker_lines("tests/t.py:23:\n>       torch.testing.assert_close(\n            res, ref)\n", 3)
    [(2, '>       torch.testing.assert_close(')]
    """
    if "assert" not in text:
        return []
    out: list[tuple[int, str]] = []
    if "^^" in text:
        for m in _ASSERT_MARKED.finditer(text):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(1).strip()))
            if len(out) >= limit:
                return out
    if "\n>" in text or text.startswith(">"):
        for m in _PYTEST_MARKED.finditer(text):
            out.append((text.count("\n", 0, m.start()) + 1, m.group(0).rstrip()))
            if len(out) >= limit:
                break
    return out


#: the detectors of printed results (and of an assert a traceback marks); each answers the first ``limit`` lines of
#: one sequence, in order
_PRINTED = (
    comparison_lines,
    block_comparison_lines,
    over_tolerance_lines,
    path_comparison_lines,
    variant_comparison_lines,
    device_comparison_lines,
    rust_assert_eq_lines,
    flagged_row_lines,
    marked_cell_lines,
    below_floor_lines,
    error_table_lines,
    verdict_false_lines,
    zero_metric_lines,
    _zero_input_lines,
    sentinel_pid_lines,
    _assert_marker_lines,
)


def _printed_results(text: str, limit: int, memo: dict[Any, Any] | None = None) -> list[tuple[int, str]]:
    """Printed values that say a check failed without a failure word (:mod:`diagnose.comparisons`): a
    reference and a device value that differ, a difference above its printed tolerance, a non-zero
    result of a call on zeros."""
    found: list[tuple[int, str]] = []
    for detect in _PRINTED:
        found += _detected(detect, text, limit, memo)
    return sorted(set(found))


def printed_result_lines(text: str, limit: int = 1) -> list[tuple[int, str]]:
    """The printed values that say a check failed (:func:`_printed_results`), for a reader outside this module: the
    ones :func:`failure_lines` counts, from the same memo (the detectors ran on this text already)."""
    memo = _memo(text)
    return [(n, line) for n, line in _printed_results(text, limit, memo) if not _healthy_in(memo, line)]


def _detected(
    detect: Callable[[str, int], list[tuple[int, str]]], text: str, limit: int, memo: dict[Any, Any] | None
) -> list[tuple[int, str]]:
    """``detect(text, limit)``, from ``memo`` where an earlier call answers it: a detector's first ``k``
    lines are the first ``k`` of any larger limit's, and an answer shorter than its limit is all there is."""
    if memo is None or limit < 1:
        return detect(text, limit)
    asked, lines = memo.get(("printed", detect), (0, []))
    if asked >= limit or len(lines) < asked:
        return lines[:limit]
    lines = detect(text, limit)
    memo[("printed", detect)] = (limit, lines)
    return lines


def failure_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """The first ``limit`` failure lines of ``text``: (line number from 1, the line stripped)."""
    memo = _memo(text)
    found = memo.get(("answer", limit))
    if found is None:
        found = memo[("answer", limit)] = tuple(_failure_lines(text, limit, memo))
    return list(found)


def first_failure(text: str, width: int = 200) -> str | None:
    r"""The first failure line of ``text`` to quote in advice, cut to ``width`` characters, or None.

    >>> first_failure("building\nerror: x.cu(3): identifier \"y\" is undefined\n")
    'error: x.cu(3): identifier "y" is undefined'
    """
    got = failure_lines(text, 1)
    if not got:
        return None
    line = got[0][1]
    return line if len(line) <= width else line[: width - 3] + "..."


#: what :func:`failure_lines` worked out for the last text it read: its callers ask about one log in
#: turn (whether it failed, the lines an unknown report shows, the lines its hint reads), with a
#: different ``limit`` each.  Keys: ("answer", limit) -> its answer; "lines" -> the candidate lines; "failed" ->
#: line start -> whether that line is a failure line; ("printed", detector) -> (the limit asked, its lines) (the
#: CUDA error tails' too); "healthy" -> line -> whether it is healthy after all
_LAST: tuple[str, dict[Any, Any]] = ("", {})
#: the memos of the last :data:`KEEP` logs read, by a digest of their text: a batch that holds the same log more
#: than once (a failure every job of a sweep prints alike) reads its failure lines once (every entry of a memo
#: is a function of the text alone; the texts themselves are not held)
_MEMOS: dict[bytes, dict[Any, Any]] = {}
KEEP = 4096


def _memo(text: str) -> dict[Any, Any]:
    global _LAST
    last = _LAST
    if last[0] is text:
        return last[1]
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    memo = _MEMOS.pop(key, None)  # (put back last: the least recently read is the first to go)
    if memo is None:
        memo = {}
        if len(_MEMOS) >= KEEP:
            del _MEMOS[next(iter(_MEMOS))]
    _MEMOS[key] = memo
    _LAST = (text, memo)
    return memo


def forget() -> None:
    """Forget every log read so far: the next question about any log is answered by a fresh reading."""
    global _LAST
    _MEMOS.clear()
    _LAST = ("", {})


def has_failure_line(text: str) -> bool:
    """Whether ``failure_lines(text, 1)`` finds a line, without the printed results' detectors where a
    line with a failure word answers first."""
    memo = _memo(text)
    found = memo.get(("answer", 1))
    if found is not None:
        return bool(found)
    if next(_keyword_lines(text, memo), None) is not None:
        return True
    if any(not _healthy_in(memo, line) for detect in _PRINTED for _, line in _detected(detect, text, 1, memo)):
        return True
    return bool(_detected(_cuda_error_tails, text, 1, memo))


def _failure_lines(text: str, limit: int, memo: dict[Any, Any]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for hit in _keyword_lines(text, memo):
        out.append(hit)
        if len(out) >= limit:
            break
    printed = [(n, line) for n, line in _printed_results(text, limit, memo) if not _healthy_in(memo, line)]
    printed += [hit for hit in _detected(_cuda_error_tails, text, limit, memo) if hit not in out]
    if printed:
        out = sorted(set(out) | set(printed))[:limit]
    return out


def _healthy_in(memo: dict[Any, Any], line: str) -> bool:
    """:func:`_healthy`, remembered in the text's memo: a printed result's line is asked about again for each
    ``limit`` the log's callers ask with."""
    known: dict[str, bool] = memo.setdefault("healthy", {})
    hit = known.get(line)
    if hit is None:
        hit = known[line] = _healthy(line)
    return hit


#: a Python frame line is a failure sign (a pasted traceback may keep its frames only), except in a report of
#: TorchDynamo's explain(), which lists each graph break's frames under "Break reasons:" ("Break Reasons:" and
#: "User Stack:" in torch/_dynamo/backends/debugging.py) and fails nothing, unless a traceback or an exception is there
_FRAME_LINE = re.compile(r'\s*File "[^"\n]+", line \d+, in \S')
_BREAK_REASONS = re.compile(r"(?i)\bbreak reasons:")
#: an exception's line, as Python ends a traceback with it (a traceback's header may be cut from a pasted log)
_EXCEPTION_LINE = re.compile(r"(?m)^[ \t]*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)\b")


def _frames_fail(text: str, memo: dict[Any, Any]) -> bool:
    """Whether a frame line of ``text`` is a failure sign: outside an explain() report, or beside a traceback or an
    exception.  Asked only when a frame line is a candidate; remembered in the text's memo."""
    known = memo.get("frames_fail")
    if known is None:
        known = memo["frames_fail"] = (
            _BREAK_REASONS.search(text) is None or "Traceback" in text or _EXCEPTION_LINE.search(text) is not None
        )
    return bool(known)


def _keyword_lines(text: str, memo: dict[Any, Any]) -> Iterator[tuple[int, str]]:
    """The lines a failure pattern selected by their keywords matches, healthy ones left out, in order."""
    candidates = memo.get("lines")
    if candidates is None:
        candidates = memo["lines"] = sorted(_candidate_lines(text).items())
    failed: dict[int, bool] = memo.setdefault("failed", {})
    logged = memo.get("logged")
    if logged is None:  # tracebacks a warning logged: a caught exception the program went on from
        logged = memo["logged"] = logged_traceback_spans(text)
    for start, indices in candidates:
        hit = failed.get(start)
        if hit is False:
            continue
        end = text.find("\n", start)
        line = text[start : end if end >= 0 else len(text)]
        if hit is None:
            hit = failed[start] = (
                len(line) <= 2000
                and _selected(frozenset(indices), line)
                and not _healthy(line)
                and (not _FRAME_LINE.match(line) or _frames_fail(text, memo))
                and not any(a <= start < b for a, b in logged)
            )
        if hit:
            yield text.count("\n", 0, start) + 1, line.strip()
