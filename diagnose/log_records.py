"""The severity a log line is printed at: a warning or INFO line that mentions an error is no failure, nor is the
line that goes on a glog record of that severity.

Kept apart from :mod:`diagnose.failure_lines` (which reads whole failure lines, and printed values through
:mod:`diagnose.comparisons`) so that the message catalogue can ask it too.
"""

from __future__ import annotations

import re

from diagnose.failure_line_table import single_line_pattern

#: lines whose own severity is below error (a warning or INFO line that mentions an error)
LOW_SEVERITY = re.compile(
    r"""
      ^\s*(?:\[[^\]\n]*\]\s*)*(?:[IWDV]\d{4}\s+\d\d:\d\d)                  # glog I/W/V lines
    | ^\s*\d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d(?:\.\d+)?:\ [IWDV]\ \S            # TensorFlow's "2021-…: W tensorflow/…"
    | \b[A-Z]\w*Warning\b: | \bwarning\b\s*[:!] | \bWARNING\b | \bWARN\b | \[W(?:ARN(?:ING)?)?\]
    | \[[IWDV]\] | \[[IWDV]\ [\w.-]+:\d+\]                                   # TensorRT, c10: [I] [TRT], [W Module.cpp:12]
    | \bINFO\b | \bDEBUG\b | \bTRACE\b
    | \bwarnings\.warn\(
    """,
    re.VERBOSE,
)


#: where a match of :data:`LOW_SEVERITY`'s two branches anchored at the line's start can begin: after its blanks,
#: a bracket, a glog severity letter or a date's first digit (every other branch holds one of the words of
#: :func:`low_severity`, or a bracket)
_LOW_START = re.compile(r"\s*[\[IWDV\d]")


def low_severity(line: str) -> bool:
    """``LOW_SEVERITY.search(line)``, searched only in a line that holds what one of its branches starts
    with (a bracket, a severity word, or a glog line's or a date's start): most lines hold none.

    >>> low_severity("W1203 12:00:01.5 a.cc:3] slow"), low_severity("[rank0] UserWarning: x"), low_severity("error: x")
    (True, True, False)
    """
    if (
        "[" in line
        or "arning" in line  # Warning, warning, warnings.warn(
        or "WARN" in line
        or "INFO" in line
        or "DEBUG" in line
        or "TRACE" in line
        or _LOW_START.match(line)
    ):
        return LOW_SEVERITY.search(line) is not None
    return False


#: the head of a glog record as glog, absl and TensorFlow print it (``I1203 10:00:00.1 12 f.cc:3] ...``,
#: ``2023-11-25 04:06:47.7: I tensorflow/...``): a message with a newline in it goes on, without that head, on the
#: next line
_RECORD_HEAD = re.compile(r"^\s*(?:[IWEFV]\d{4}\s+\d\d:\d\d|\d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d(?:\.\d+)?:\ [IWEFV]\ )")


def low_record_tail(before: str, line: str) -> bool:
    """``line`` goes on the glog record of warning or INFO severity that ``before`` opens: TensorFlow's INFO record
    ``could not open file to read NUMA node: ...`` goes on with ``Your kernel may have been built without NUMA
    support.``.  A line that reads as a failure line of its own (:mod:`diagnose.failure_line_table`) is not a
    record's tail.

    >>> head = "2023-11-25 04:06:47.733361: I tensorflow/x.cc:880] could not open file to read NUMA node: /sys/n"
    >>> low_record_tail(head, "Your kernel may have been built without NUMA support.")
    True
    >>> low_record_tail(head, "RuntimeError: CUDA error: out of memory"), low_record_tail("step 3", "built without X")
    (False, False)
    """
    return (
        bool(line.strip())
        and _RECORD_HEAD.match(line) is None
        and _RECORD_HEAD.match(before) is not None
        and low_severity(before)
        and single_line_pattern().search(line) is None
    )


#: NCCL's own INFO record (``host:pid:tid [dev] NCCL INFO ...``; releases before 2.3 print ``INFO`` without ``NCCL``):
#: what NCCL tried and how it went on (``nvmlDeviceGetNvLinkCapability() failed: Not Supported`` on a GPU without
#: NVLink, before it picks another path); its WARN records stay failure lines
_NCCL_INFO = re.compile(r"^\s*[\w.-]+:\d+:\d+ \[\d+\] (?:NCCL )?INFO\b")


def logged_low(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is a glog record of warning or INFO severity, or the line that goes on
    one (:func:`low_record_tail`), or NCCL's INFO record.

    >>> line = "ecb2de971add:35789:35964 [1] INFO nvmlDeviceGetNvLinkCapability() failed: Not Supported"
    >>> logged_low(line, line.index("failed")), logged_low("node1:12:34 [0] NCCL WARN Cuda failure 'x'", 30)
    (True, False)
    """
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    line = text[start : end if end >= 0 else len(text)]
    if _NCCL_INFO.match(line):
        return True
    if _RECORD_HEAD.match(line):
        return low_severity(line)
    if start == 0:
        return False
    before = text[text.rfind("\n", 0, start - 1) + 1 : start - 1]
    return low_record_tail(before, line)


#: the head of a Python ``logging`` record of warning, INFO or DEBUG severity, in the formats its handlers print:
#: ``WARNING:root:msg``, ``WARNING  msg   file.py:61`` (rich), ``[WARNING] msg``, ``2024-05-01 10:00:00,123 - name -
#: WARNING - msg``, ``2024-05-01 10:00:00 WARNING msg``, ``[2024-05-01 10:00:00] [INFO] msg``
_LOGGING_LOW_HEAD = re.compile(
    r"""^\s*(?:\[?\d{4}-\d\d-\d\d[T\ ]\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s*(?:[-|]\s*)?(?:[\w.]+\s+-\s+)?)?
         \[?(?:WARNING|WARN|INFO|DEBUG)\]?(?::[\w.]*:|\s+-\s+|\s)""",
    re.VERBOSE,
)
_TB_HEAD = "Traceback (most recent call last):"


def logged_traceback(lines: list[str], head: int) -> bool:
    """Whether the traceback whose ``Traceback (most recent call last):`` line is ``lines[head]`` is one a Python
    ``logging`` record of warning, INFO or DEBUG severity printed right under its message (``logger.warning(msg,
    exc_info=True)``): an exception the program caught, logged and went on from (xFormers' "A matching Triton is not
    available" with the ``ModuleNotFoundError`` it caught), not the one that ended it.  Python's warnings
    (``UserWarning: ...``) and glog records (``[W ...]``, ``W1203 ...``) print no traceback of their own and are
    not read so.

    >>> logged_traceback(["WARNING  A matching Triton is not available   __init__.py:61", _TB_HEAD], 1)
    True
    >>> logged_traceback(["2024-05-01 10:00:00,123 - xformers - WARNING - Triton missing", _TB_HEAD], 1)
    True
    >>> logged_traceback(["x.py:3: UserWarning: slow path", "  warnings.warn(", _TB_HEAD], 2)
    False
    >>> logged_traceback(["ERROR:root:failed", _TB_HEAD], 1), logged_traceback([_TB_HEAD], 0)
    (False, False)
    """
    if head <= 0:
        return False
    return _LOGGING_LOW_HEAD.match(lines[head - 1]) is not None


def logged_traceback_spans(text: str) -> list[tuple[int, int]]:
    r"""The character spans of ``text`` that are tracebacks :func:`logged_traceback` reads as logged: from the
    ``Traceback`` line to its exception line (the first line after it that is neither indented nor blank).

    >>> log = "WARNING  Triton is not available\nTraceback (most recent call last):\n  File \"x.py\", line 1\nE: x\nok\n"
    >>> [log[a:b] for a, b in logged_traceback_spans(log)][0].splitlines()[-1]
    'E: x'
    """
    spans: list[tuple[int, int]] = []
    at = text.find(_TB_HEAD)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        nxt = text.find(_TB_HEAD, at + len(_TB_HEAD))
        if start > 0 and text[start:at].strip() == "":
            prev = text.rfind("\n", 0, start - 1) + 1
            if _LOGGING_LOW_HEAD.match(text, prev, start - 1) is not None:
                end = _traceback_end(text, text.find("\n", at))
                spans.append((start, end))
                if 0 <= nxt < end:
                    nxt = text.find(_TB_HEAD, end)
        at = nxt
    return spans


def _traceback_end(text: str, pos: int) -> int:
    """Where the traceback whose head line ends at ``pos`` ends: after its first line that is neither indented nor
    blank (its exception line), or at the end of ``text``."""
    while 0 <= pos < len(text):
        line_end = text.find("\n", pos + 1)
        line = text[pos + 1 : line_end if line_end >= 0 else len(text)]
        if line and not line[0].isspace():
            return line_end + 1 if line_end >= 0 else len(text)
        pos = line_end
    return len(text)


#: a report's row whose value is an exception's ``repr`` (``cuSOLVER Version   : ImportError('libhipblas.so.2: cannot
#: open shared object file: ...')``, CuPy's ``show_config()``, which prints what failed to load instead of a version):
#: a field of a report that went on, not an exception raised
_REPORTED_EXCEPTION = re.compile(r"^\s*[A-Za-z][\w .()/+-]{0,60}?\s:\s+[A-Z]\w*(?:Error|Exception)\((?:'|\")")


def reported_exception(line: str) -> bool:
    """Whether ``line`` is a report's row whose value is an exception's ``repr`` (:data:`_REPORTED_EXCEPTION`).

    >>> reported_exception("cuSOLVER Version          : ImportError('libhipblas.so.2: cannot open shared object file')")
    True
    >>> reported_exception("ImportError: libcusolver.so.11: cannot open shared object file"), reported_exception("x")
    (False, False)
    """
    return ":" in line and "(" in line and _REPORTED_EXCEPTION.match(line) is not None
