"""Values a tool printed that cannot be real: the all-ones sentinel of an unsigned field where a process id stands.

A process id is a positive number below the kernel's ``pid_max`` (at most 2^22 on Linux).  NVML's process
records (``nvmlProcessInfo_t.pid``, an ``unsigned int``) and the tools that print them (``nvidia-smi``,
pynvml, nvitop, gpustat) show a PID of 4294967295 (``0xFFFFFFFF``, -1 in 32 bits) or 18446744073709551615
(-1 in 64 bits) only when the record was decoded with the wrong layout or filled with the "invalid" marker:
the printed list is not the processes, whatever the tool says around it.

>>> [n for n, _ in sentinel_pid_lines("pids = [1184, 0, 4294967295, 16040]", 3)]
[1]
>>> sentinel_pid_lines("free bytes: 4294967295", 3)
[]
"""

from __future__ import annotations

import re

from diagnose.regex_anchor import lowered

_SENTINEL = re.compile(r"(?<![\w.])(?:4294967295|18446744073709551615|0[xX][fF]{8}(?:[fF]{8})?)(?![\w.])")
#: the field or list the value belongs to names process ids
_PID = re.compile(r"\b(?:pids?|PIDs?|Pids?|process_?ids?|processIds?)\b")
#: how many lines above a bare value its header or the expression that printed it may stand
_WINDOW = 12


def _may_hold(text: str) -> bool:
    """Whether ``text`` holds what every match of _SENTINEL holds (its search starts nowhere in particular)."""
    if "4294967295" in text or "18446744073709551615" in text:
        return True
    return ("0x" in text or "0X" in text) and "0xffffffff" in lowered(text)


def sentinel_pid_lines(text: str, limit: int) -> list[tuple[int, str]]:
    """Lines (numbered from 1) where an all-ones sentinel stands as a process id, the first ``limit``."""
    if limit < 1 or not _may_hold(text) or not _SENTINEL.search(text):
        return []
    lines = text.splitlines()
    out: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if len(line) > 2000 or not _SENTINEL.search(line):
            continue
        context = lines[max(0, i - _WINDOW) : i + 1]
        if any(_PID.search(c) for c in context):
            out.append((i + 1, line.strip()))
            if len(out) >= limit:
                break
    return out
