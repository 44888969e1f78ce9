"""Is there a failure at all?  The signs that a log records something that went wrong.

``kdiag classify`` answers ``no-failure`` for a log in which no rule fired *and* nothing failed;
when something failed and no rule decides, the answer stays ``unknown``.  So this module errs
towards "failed": any one sign below is enough, and the healthy exceptions are narrow.

A failure is

- the process ended badly: a non-zero exit status, a signal, a timeout, the OOM killer;
- an exception (a Python traceback, or a bare ``SomeError: ...`` line);
- a collector fact that denotes an error: a CUDA error or device-side assertion, an out-of-memory
  report, a message of a failure family of the tools' own catalogue (``CUBLAS_STATUS_EXECUTION_FAILED``
  quoted alone, an issue title that is only the error), a Triton error, compiler errors (or a fatal ptxas message), sanitizer errors, leaks or
  race hazards, an environment problem (driver, library, device), a numerical mismatch;
- an error-like line (``error:``, ``FAILED``, ``fatal``, ``Segmentation fault``, ``Aborted``,
  ``terminate called``, ``3 failed``, an XLA/absl status such as ``INTERNAL:`` or ``RESOURCE_EXHAUSTED:``,
  a run's own statement that its output is wrong: ``WRONG ANSWER``, ``wrong results``, ...) that is not clearly healthy: a count of zero
  (``0 errors``, ``error_count=0``), a measured error (``max abs error: 0.0``), a warning
  or an INFO-level log line that only mentions the word (``-Werror`` is no match to begin with).

What is *not* a failure by itself: warnings of every kind, ``ptxas -v`` resource figures
(registers, spills), an ``nvidia-smi`` table, MIG or compute-mode information, configs the
Triton autotuner skipped before it selected a best one, outputs equal within tolerance.

>>> from diagnose.collectors import collect
>>> failure_signs(collect("ptxas info    : Used 10 registers, used 0 barriers\\n1 passed in 0.77s\\n"))
()
>>> failure_signs(collect("========= ERROR SUMMARY: 0 errors\\n"))
()
>>> failure_signs(collect("max abs error: 0.0\\nvector add: OK\\n"))
()
>>> failure_signs(collect("a.cu(3): error: identifier \\"x\\" is undefined\\n"))
('compiler errors: 1',)
>>> failure_signs(collect("FAILED tests/test_k.py::test_tail - assert 0.5 == 0.0\\n"))
('line 1: FAILED tests/test_k.py::test_tail - assert 0.5 == 0.0',)
"""

from __future__ import annotations

import re

from diagnose.evidence import Evidence

#: environment tags that describe the machine without saying anything failed
_ENV_INFORMATIONAL = frozenset({"mig", "exclusive-compute-mode", "compute-mode-prohibited"})

#: words and shapes that mark a line as a failure
_FAILURE_LINE = re.compile(
    r"""
      \b(?:error|Error|ERROR)\b\s*(?:\[[^\]\n]{0,40}\]\s*)?[:!]    # error: / Error: / ERROR: / error[E12]:
    | \b(?:fatal|Fatal|FATAL)\b(?:\s+error)?\s*[:!]
    | \[(?:ERROR|FATAL|CRITICAL|error|fatal)\]
    | ^\s*[EF]\d{4}\s+\d\d:\d\d:\d\d                             # glog E/F lines
    | \bFAILED\b | \bFAILURE\b | \bFAIL\b
    | \b[1-9]\d*\s+(?:failed|errors?|failures)\b                   # pytest / ctest / compiler totals
    | Segmentation\ fault | \bAborted\b | core\ dumped | \bBus\ error\b
    | Floating\ point\ exception | Illegal\ instruction | ^\s*Killed\b
    | terminate\ called | \bwhat\(\):
    | \bpanic(?:ked)?\b:?
    | \bAssertion\b.{0,200}\bfailed | \bassertion\ failed
    | (?:Error|Exception)\(                                        # an exception's repr: AssertionError('...')
    | \bException\ in\ thread\b | make(?:\[\d+\])?:\ \*\*\*
    | \bCUDA\ error\b | \bcuda\ error\b | \bCUDA_ERROR_[A-Z_]+ | \bcudaError(?!_t\b)\w+ | \b(?:CUDA|Cuda|cuda)\ failure\b
    | illegal\ memory\ access | illegal\ address | [Mm]isaligned\ address | unspecified\ launch\ failure
    | device-side\ assert | \bout\ of\ memory\b
    | \b(?:Failed|failed)\ (?:to|with)\b
    | \bNaN\b                                                    # a NaN printed as a result
    | (?:^|[\s:\#(])(?:INTERNAL|INVALID_ARGUMENT|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|UNIMPLEMENTED
        |OUT_OF_RANGE|DATA_LOSS|DEADLINE_EXCEEDED):\s                # an XLA/absl status (jaxlib, TF): INTERNAL: ...
    | \b(?:WRONG\ (?:ANSWER|RESULTS?)|[Ww]rong\ (?:answers?|results?|outputs?)|[Ii]ncorrect\ (?:results?|outputs?))\b
                                                                   # a run that says its own output is wrong
    """,
    re.VERBOSE | re.MULTILINE,
)

#: on a line that matched, these say it is healthy after all
_HEALTHY_LINE = re.compile(
    r"""
      \b0\s+(?:errors?|failed|failures|hazards)\b                      # 0 errors, 0 failed
    | \b(?:errors?|failures|failed)\s*[:=]\s*0\b(?!\.\d*[1-9])          # errors: 0, failed=0
    | \berror_count\s*[:=]\s*0\b
    | \bno\ errors?\b | \bwithout\ errors?\b
    | \berror\s*[:=]\s*[-+]?(?:\d*\.\d|\d+[eE][-+]?\d|0\b|inf\b|none\b)  # a measured error: "max abs error: 0.0"
    | \bError:\s*(?:none|None)\b
    | \b(?:0|no|zero|without)\s+(?:wrong|incorrect)\s+(?:answers?|results?|outputs?)\b  # 0 wrong results
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: lines whose own severity is below error (a warning or INFO line that mentions an error)
_LOW_SEVERITY = re.compile(
    r"""
      ^\s*(?:\[[^\]\n]*\]\s*)*(?:[IWDV]\d{4}\s+\d\d:\d\d)                  # glog I/W/V lines
    | \b[A-Z]\w*Warning\b: | \bwarning\b\s*[:!] | \bWARNING\b | \bWARN\b | \[W(?:ARN(?:ING)?)?\]
    | \bINFO\b | \bDEBUG\b | \bTRACE\b
    | \bwarnings\.warn\(
    """,
    re.VERBOSE,
)

#: lines in which an error word is not about this run (an echoed option, a test's PASSED line)
_NOT_ABOUT_RUN = re.compile(r"\b(?:PASSED|XFAIL|XPASS|SKIPPED|xfailed|xpassed)\b")


def failure_signs(ev: Evidence, *, limit: int = 3) -> tuple[str, ...]:
    """Why ``ev`` records a failure: one short reason per sign (the first few), empty when none."""
    signs = _fact_signs(ev)
    if not signs:
        signs = _line_signs(ev.log.text, limit)
    return tuple(signs[:limit])


def has_failure(ev: Evidence) -> bool:
    return bool(failure_signs(ev, limit=1))


def _fact_signs(ev: Evidence) -> list[str]:
    out: list[str] = []
    x = ev.exit
    if x is not None:
        if x.code not in (None, 0):
            out.append(f"exit status {x.code}")
        if x.signal:
            out.append(f"signal {x.signal}")
        if x.timed_out:
            out.append("timed out")
        if x.oom_killed:
            out.append("killed by the OOM killer")
        if x.core_dumped and not x.signal:
            out.append("core dumped")
    if ev.py is not None and ev.py.exc_type:
        out.append(f"exception {ev.py.exc_qualname or ev.py.exc_type}")
    if ev.cuda is not None and (ev.cuda.error or ev.cuda.errors or ev.cuda.device_assert):
        out.append(
            "device-side assertion" if ev.cuda.device_assert and not ev.cuda.error else f"CUDA error {ev.cuda.error}"
        )
    if ev.oom is not None and ev.oom.kind:
        out.append(f"out of memory ({ev.oom.kind})")
    t = ev.triton
    if t is not None:
        if t.error:
            out.append(f"Triton {t.error}")
        if t.no_active_driver:
            out.append("Triton found no active driver")
        if t.autotune_failures and not t.autotune_best_config:
            out.append(f"the autotuner failed on {t.autotune_failures} config(s) and selected none")
    c = ev.compiler
    if c is not None:
        if c.error_count > 0:
            out.append(f"compiler errors: {c.error_count}")
        elif c.ptxas_fatal or c.unknown_arch or c.host_compiler_unsupported:
            out.append(f"compiler: {c.ptxas_fatal or c.unknown_arch or 'unsupported host compiler'}")
    s = ev.sanitizer
    if s is not None and (s.error_count > 0 or s.leaks > 0 or s.race_hazards > 0 or s.api_error or s.barrier_error):
        out.append(f"sanitizer: {s.error_count} error(s)")
    if ev.env is not None:
        issues = [i for i in ev.env.issues if i not in _ENV_INFORMATIONAL]
        if issues and not _all_low_severity(ev.log.text, ev.env.lines):
            out.append(f"environment: {', '.join(issues)}")
    out.extend(_family_signs(ev))
    n = ev.numerics
    failed_numerics = n is not None and (n.mismatch or n.shape_mismatch or n.dtype_mismatch or n.nan_in_output)
    if n is not None and failed_numerics and not n.expected_variation:
        out.append("numerical mismatch")
    return out


def _family_signs(ev: Evidence) -> list[str]:
    """A message of a failure family (severity ``error`` in diagnose/data/catalogue/) on a line of error severity.

    A family's message is the tool's own statement that something failed, whatever words surround
    it; the line's own severity still counts (an INFO or warning line that quotes an error name is
    not a failure of this run)."""
    c = ev.concept
    if c is None or not c.failed or c.family is None:
        return []
    if _all_low_severity(ev.log.text, c.lines):
        return []
    return [f"message family {c.family}"]


def _all_low_severity(text: str, lines: tuple[int, ...]) -> bool:
    """Every cited line is a warning or INFO line (NCCL's ``INFO NET/Plugin ... cannot open``)."""
    if not lines:
        return False
    wanted = set(lines)
    last = max(wanted)
    for n, line in enumerate(text.splitlines(), 1):
        if n in wanted and not _LOW_SEVERITY.search(line):
            return False
        if n >= last:
            break
    return True


#: every match of _FAILURE_LINE but a glog E/F line contains one of these, lower-cased.  Python's
#: regex engine tries the whole alternation at every position (about 1 µs a character), so the
#: lines are found with plain substring search first and only they are matched.
_KEYWORDS = (
    "error", "fatal", "critical", "fail", "segmentation", "abort", "core dumped", "floating point",
    "illegal", "killed", "terminate", "what():", "panic", "assert", "exception", "***", "misaligned",
    "out of memory", "nan", "internal:", "invalid_argument:", "resource_exhausted:", "failed_precondition:",
    "unimplemented:", "out_of_range:", "data_loss:", "deadline_exceeded:", "wrong", "incorrect",
)  # fmt: skip
_GLOG_ERROR = re.compile(r"^\s*[EF]\d{4}\s+\d\d:\d\d:\d\d", re.MULTILINE)


def _candidate_lines(text: str) -> list[int]:
    """Start offsets of the lines that hold a keyword, in order."""
    lower = text.lower()
    starts: set[int] = set()
    for k in _KEYWORDS:
        i = lower.find(k)
        while i >= 0:
            starts.add(lower.rfind("\n", 0, i) + 1)
            nl = lower.find("\n", i)
            if nl < 0:
                break
            i = lower.find(k, nl)
    starts.update(text.rfind("\n", 0, m.start()) + 1 for m in _GLOG_ERROR.finditer(text))
    return sorted(starts)


def _line_signs(text: str, limit: int) -> list[str]:
    out: list[str] = []
    for start in _candidate_lines(text):
        end = text.find("\n", start)
        line = text[start : end if end >= 0 else len(text)]
        if len(line) > 2000 or not _FAILURE_LINE.search(line):
            continue
        if _HEALTHY_LINE.search(line) or _NOT_ABOUT_RUN.search(line):
            continue
        if _LOW_SEVERITY.search(line) and not _STRONG.search(line):
            continue
        out.append(f"line {text.count(chr(10), 0, start) + 1}: {line.strip()[:160]}")
        if len(out) >= limit:
            break
    return out


#: words that mark a failure even on a warning-level line
_STRONG = re.compile(r"Segmentation fault|core dumped|terminate called|\bFAILED\b|\b(?:fatal|Fatal|FATAL)\b")
