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
