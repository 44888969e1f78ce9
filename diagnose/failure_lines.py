"""Lines that say something failed, in the shapes tools print failures in.

:func:`failure_lines` finds them in a log; :mod:`diagnose.failure` uses them when no collector fact
already says the run failed.  The patterns follow the families of how tools print a failure, not
any one report's wording:

- a logging severity of error or above: ``error:``, ``ERROR:``, ``[ERROR]``, glog/absl ``E1203`` and
  ``F1203`` lines (also inside a prefix, ``[rank0]:[E1203 ...]``), c10's ``[E ProcessGroupNCCL.cpp:475]``,
  TensorRT's ``[E]``, ``ERROR 05-05 17:03:35`` / ``- ERROR -`` / ``| ERROR |`` (Python logging, loguru),
  ``level=error`` (logfmt), ``CRITICAL:``; NCCL's ``NCCL WARN`` (its level for warnings *and* errors)
  counts when the line names a failure;
- an exception: a Python ``Traceback`` header, a bare exception name (``XlaRuntimeError``), pytest's
  ``E   AssertionError`` explanation lines, a C++ ``terminate called`` / ``what():`` / ``std::bad_alloc``,
  ``Check failed:`` (glog CHECK), an unhandled exception;
- a process that died: signals (``SIGSEGV``, ``Segmentation fault``, ``Aborted``), glibc's heap checks
  (``free(): invalid pointer``, ``double free or corruption``, ``stack smashing detected``), a non-zero
  exit status or error code, the GPU driver's ``Xid`` / ``fallen off the bus``, ROCm's ``Memory access fault``;
- a library status enum other than success (``CUDNN_STATUS_BAD_PARAM``, ``NVRTC_ERROR_COMPILATION``,
  ``hipErrorNoBinaryForGpu``, ``ncclUnhandledCudaError``, ``CUFFT_INTERNAL_ERROR``);
- a failed statement (``cudaMemcpy failed: invalid argument``, ``Build failed.``), a linker error;
- a test framework's failure report (``FAILED``, ``3 failed``, gtest's ``file:12: Failure``, numpy/torch
  testing's ``Mismatched elements: 3 / 1024``, ``Not equal to tolerance``, ``Tensor-likes are not close``);
- a hang: ``timed out``, a watchdog that fired, a collective timeout, a detected deadlock;
- a printed NaN, a run that says its own output is wrong.

A matching line is still healthy when it counts zero (``0 errors``, ``errors: 0``, ``failed: 0``), states a
measured error (``max abs error: 1e-7``), is a test's ``PASSED`` line, or is a warning / INFO line that only
mentions the word (``W1203``, ``UserWarning``, ``NCCL INFO ... failed``).

>>> [n for n, _ in failure_lines("step 1 loss 0.3\\nE1203 10:00:00.1 12 a.cc:3] Check failed: ok\\n")]
[2]
>>> failure_lines("========= ERROR SUMMARY: 0 errors\\nmax abs error 1e-07\\n")
[]
"""

from __future__ import annotations

import re

#: words and shapes that mark a line as a failure
_FAILURE_LINE = re.compile(
    r"""
    # --- severities: error: / Error: / ERROR: / error[E12]: / CRITICAL: / [ERROR] / glog E,F / [E] ---
      \b(?:error|Error|ERROR|CRITICAL)\b\s*(?:\[[^\]\n]{0,40}\]\s*)?[:!]
    | \b(?:fatal|Fatal|FATAL)\b(?:\s+error)?\s*[:!]
    | \[(?:ERROR|FATAL|CRITICAL|error|fatal)\]
    | (?:^|[\[\s:])[EF]\d{4}\s+\d\d:\d\d:\d\d                     # glog/absl E/F lines, also in a prefix
    | \[[EF]\]                                                   # TensorRT's logger: [E] [TRT] ...
    | \[[EF]\ [\w.-]+:\d+\]                                      # c10 logging: [E ProcessGroupNCCL.cpp:475]
    | (?:^|[\s|\[(-])(?:ERROR|FATAL|CRITICAL)(?=\s+\d|\s*[|\]]|\s+-\s|\s{2,})  # ERROR 05-05 ..., - ERROR -, | ERROR |
    | \b(?:level|lvl|severity|levelname)\s*[=:]\s*["']?(?:error|fatal|critical|panic|ERROR|FATAL|CRITICAL)\b
    | \bNCCL\ WARN\b.*\b(?:[Ff]ail\w*|[Ee]rror|timed\ out|[Tt]imeout|[Aa]bort\w*)
    # --- test frameworks ---
    | \bFAILED\b | \bFAILURE\b | \bFAIL\b
    | \b[1-9]\d*\s+(?:failed|errors?|failures)\b                   # pytest / ctest / compiler totals
    | :\d+:\ Failure\s*$                                          # googletest: file.cc:12: Failure
    | ^E\ {2,}\S                                                  # pytest's explanation lines: E   assert ...
    | \bMismatched\ elements:\s*[1-9] | \bNot\ equal\ to\ tolerance\b | \bArrays\ are\ not\ (?:almost\ )?equal\b
    | \b(?:Tensor-likes|Scalars)\ are\ not\ (?:close|equal)\b
    # --- processes that died ---
    | Segmentation\ fault | \bAborted\b | core\ dumped | \bBus\ error\b
    | Floating\ point\ exception | Illegal\ instruction | ^\s*Killed\b
    | \bSIG(?:SEGV|ABRT|BUS|FPE|ILL|TRAP)\b
    | \b(?:[Rr]eceived|[Cc]aught|[Gg]ot)\ (?:signal\ \d+|SIG[A-Z]+)
    | \b(?:free|malloc|realloc|munmap_chunk|malloc_consolidate)\(\):\ | \bdouble\ free\b | stack\ smashing\ detected
    | (?i:\b(?:exit(?:ed)?|return(?:ed)?)[\ _-]?(?:with\ )?(?:exit\ )?(?:code|status|value)\b\s*[:=]?\s*-?[1-9]\d*\b)
    | \bexitcode\s*[:=]\s*-?[1-9] | \bnon-?zero\ exit\ (?:status|code)\b
    | \b(?:[Ee]rror|err)\ (?:code\s*)?[:=]?\s*-?[1-9]\d*(?![.,]?\d|[eE]) # error code 700, with error 12
    | \bNVRM:\ Xid\b | fallen\ off\ (?:of\ )?the\ bus | \bMemory\ access\ fault\b | \bGPU\ [Hh]ang\b
    # --- exceptions ---
    | ^\s*Traceback\ \(most\ recent\ call\ last\):
    | ^\s*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\s*$      # a bare exception name: XlaRuntimeError
    | terminate\ called | \bwhat\(\):
    | \bstd::(?:bad_\w+|\w+_error)\b | \bc10::\w*Error\b
    | \b[Uu]n(?:handled|caught)\ exception\b | \bexception\ (?:was\ )?(?:thrown|raised)\b
    | \bCheck\ fail(?:ed|ure)\b
    | \bpanic(?:ked)?\b:?
    | \bAssertion\b.{0,200}\bfailed | \bassertion\ failed
    | (?:Error|Exception)\(                                        # an exception's repr: AssertionError('...')
    | \bException\ in\ thread\b | make(?:\[\d+\])?:\ \*\*\*
    # --- status enums and error codes of CUDA and its libraries ---
    | \bCUDA\ error\b | \bcuda\ error\b | \bCUDA_ERROR_[A-Z_]+ | \bcudaError(?!_t\b)\w+ | \b(?:CUDA|Cuda|cuda)\ failure\b
    | \b[A-Z][A-Z0-9]*_STATUS_(?!SUCCESS\b)[A-Z][A-Z0-9_]*        # CUDNN_STATUS_BAD_PARAM, CUBLAS_STATUS_...
    | \b[A-Z][A-Z0-9]*_ERROR_[A-Z0-9_]+                            # NVRTC_ERROR_COMPILATION, VK_ERROR_...
    | \bCUFFT_(?:INVALID|INTERNAL|EXEC|ALLOC|SETUP|UNALIGNED|INCOMPLETE|PARSE|NO_WORKSPACE|NOT_IMPLEMENTED
        |LICENSE|NOT_SUPPORTED)\w*
    | \bhipError(?!_t\b)\w+ | \bnccl(?:[A-Z]\w*Error|InvalidArgument|InvalidUsage)\b | \bNCCL\ error\b
    | illegal\ memory\ access | illegal\ address | [Mm]isaligned\ address | unspecified\ launch\ failure
    | device-side\ assert | \bout\ of\ memory\b
    # --- failed statements, linkers ---
    | \b(?:Failed|failed)\ (?:to|with|because|due\ to|while|when)\b
    | \b(?:Failed|failed|FAILED)\s*[:(!]
    | \S\s+(?:failed|FAILED)[.!]?\s*$                              # Build failed. / subcommand failed
    | (?:^\s*|[.:;!]\s+)(?:[Aa]n\ |[Tt]he\ )?(?:[Ee]rror|[Ee]xception)\ (?:has\ )?occurred\b  # a statement, not "if an error ..."
    | \b(?:[Ee]rror|[Ee]xception)\ occurred\ (?:while|during)\b
    | \bundefined\ (?:reference\ to|symbol)\b | \bmultiple\ definition\ of\b
    # --- hangs ---
    | \btim(?:ed|ing)\ out\b | \b[Tt]imeout\ (?:exceeded|expired|reached)\b
    | \b[Ww]atchdog\b.{0,80}(?:timeout|timed\ out|caught|detected|fired|terminat|abort)
    | \b(?:[Cc]ollective|NCCL|[Oo]peration|[Kk]ernel|[Ll]aunch)\ timeout\b
    | \bdeadlock(?:ed|\ detected)\b
    # --- results ---
    | \bNaN\b                                                    # a NaN printed as a result
    | (?:^\s*|[\[(,:=]\s*)[-+]?nan(?=[\s\]),]|$)                 # numpy/torch print it lower-case: [nan, 1.0]
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
    | \bno\ errors?\b | \bwithout\ errors?\b | \b(?:none|nothing)\ failed\b
    | \berror\s*[:=]\s*[-+]?(?:\d*\.\d|\d+[eE][-+]?\d|0\b|inf\b|none\b)  # a measured error: "max abs error: 0.0"
    | \bError:\s*(?:none|None)\b
    | \b(?:0|no|zero|without)\s+(?:wrong|incorrect)\s+(?:answers?|results?|outputs?)\b  # 0 wrong results
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: lines whose own severity is below error (a warning or INFO line that mentions an error)
LOW_SEVERITY = re.compile(
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

#: words that mark a failure even on a warning-level line (NCCL prints its errors at WARN)
_STRONG = re.compile(
    r"Segmentation fault|core dumped|terminate called|\bFAILED\b|\b(?:fatal|Fatal|FATAL)\b"
    r"|\bNCCL WARN\b.*\b(?:[Ff]ail\w*|[Ee]rror|timed out|[Tt]imeout|[Aa]bort\w*)"
)

#: every match of _FAILURE_LINE but the ones _LINE_STARTS finds contains one of these, lower-cased.
#: Python's regex engine tries the whole alternation at every position (about 1 µs a character), so
#: the lines are found with plain substring search first and only they are matched.
_KEYWORDS = (
    "error", "fatal", "critical", "fail", "segmentation", "abort", "core dumped", "floating point",
    "illegal", "killed", "terminate", "what():", "panic", "assert", "exception", "***", "misaligned",
    "out of memory", "nan", "internal:", "invalid_argument:", "resource_exhausted:", "failed_precondition:",
    "unimplemented:", "out_of_range:", "data_loss:", "deadline_exceeded:", "wrong", "incorrect",
    "[e]", "[f]", "[e ", "[f ", "level", "severity", "lvl", "mismatched elements", "not equal", "not close",
    "sig", "(): ", "double free", "stack smashing", "exit", "return", "xid", "fallen off", "memory access fault",
    "hang", "traceback", "std::", "c10::", "_status_", "cufft_", "nccl", "undefined", "multiple definition",
    "timed out", "timing out", "occurred", "timeout", "watchdog", "deadlock",
)  # fmt: skip
#: failure lines recognised by their start, with no keyword: glog E/F lines, pytest's ``E   `` lines
_LINE_STARTS = re.compile(r"^\s*[EF]\d{4}\s+\d\d:\d\d:\d\d|^E {2,}\S", re.MULTILINE)


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
    starts.update(text.rfind("\n", 0, m.start()) + 1 for m in _LINE_STARTS.finditer(text))
    return sorted(starts)


def is_failure_line(line: str) -> bool:
    """``line`` reports a failure and is not one of the healthy look-alikes."""
    if len(line) > 2000 or not _FAILURE_LINE.search(line):
        return False
    if _HEALTHY_LINE.search(line) or _NOT_ABOUT_RUN.search(line):
        return False
    return not (LOW_SEVERITY.search(line) and not _STRONG.search(line))


def failure_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """The first ``limit`` failure lines of ``text``: (line number from 1, the line stripped)."""
    out: list[tuple[int, str]] = []
    for start in _candidate_lines(text):
        end = text.find("\n", start)
        line = text[start : end if end >= 0 else len(text)]
        if is_failure_line(line):
            out.append((text.count("\n", 0, start) + 1, line.strip()))
            if len(out) >= limit:
                break
    return out
