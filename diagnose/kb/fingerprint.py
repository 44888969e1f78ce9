"""A failure's fingerprint: its signature with everything run-specific normalised away, hashed.

The signature is built from what names the failure — the error lines of the log, the exception,
the CUDA error, the exit signal, the facts a controlled run found — never from kdiag's verdict, so a
rule change does not move a failure to another entry.  Addresses, numbers, paths, temp names, pids,
UUIDs and times are replaced by placeholders: the same failure from two runs has one fingerprint.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

from diagnose.evidence import Evidence

MAX_LINES = 12
MAX_LINE = 200

#: lines that say what went wrong (the rest of a log is progress, timing and traceback frames)
_ERRORISH = re.compile(
    r"error|fatal|fail|exception|assert|abort|illegal|invalid|out of (memory|resource)|segmentation|"
    r"core dumped|killed|timed? ?out|not (found|supported|compatible)|cannot|unable|mismatch|"
    r"unspecified launch|misaligned|out of bounds|no kernel image|undefined",
    re.IGNORECASE,
)
_NOISE = re.compile(r"^\s*(File \"|at |\^+\s*$|~+\s*$)")

_SUBS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"), "<TIME>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b"), "<TIME>"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<UUID>"),
    (re.compile(r"\b0[xX][0-9a-fA-F]+\b"), "<HEX>"),
    # a path: keep its last component only (the directory is the machine's, the file name is the failure's)
    (re.compile(r"(?<![\w<])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[/\\][^\s'\"()\[\]:,;/\\]+)+[/\\]"), ""),
    (re.compile(r"\btmp[\w-]{3,}|\b[\w-]*_tmp[\w-]*"), "<TMP>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b"), "<HEX>"),
    (re.compile(r"(?<![\w<])[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?"), "<N>"),
    (re.compile(r"[ \t]+"), " "),
)


def normalise(text: str) -> str:
    """One line with addresses, numbers, paths, temp names, pids and times replaced."""
    for rx, repl in _SUBS:
        text = rx.sub(repl, text)
    return text.strip()[:MAX_LINE]


def key_lines(text: str) -> list[str]:
    """The log's error lines, normalised, deduplicated, in order (else its last three lines)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    picked = [ln for ln in lines if _ERRORISH.search(ln) and not _NOISE.match(ln)]
    if not picked:
        picked = lines[-3:]
    out: list[str] = []
    seen: set[str] = set()
    for ln in picked:
        n = normalise(ln)
        if n and n not in seen:
            seen.add(n)
            out.append(n)
        if len(out) >= MAX_LINES:
            break
    return out


def headline(ev: Evidence) -> str:
    """The one raw line that best names the failure (what the template miner groups by)."""
    py = ev.py
    if py is not None and py.exc_type:
        msg = (py.exc_message or "").splitlines()[0] if py.exc_message else ""
        return f"{py.exc_qualname or py.exc_type}: {msg}".strip()
    lines = [ln.strip() for ln in ev.log.text.splitlines() if ln.strip()]
    for ln in lines:
        if _ERRORISH.search(ln) and not _NOISE.match(ln):
            return ln[:400]
    return lines[-1][:400] if lines else "(empty log)"


def signature(ev: Evidence) -> str:
    """The normalised text the fingerprint hashes (kept in the store, so a person can read it)."""
    parts: list[str] = []
    if ev.cuda is not None and ev.cuda.error:
        parts.append(f"cuda: {ev.cuda.error}")
    if ev.py is not None and ev.py.exc_type:
        parts.append(f"py: {ev.py.exc_type}")
        if ev.py.user_func:
            parts.append(f"py-func: {normalise(ev.py.user_func)}")
    if ev.triton is not None and ev.triton.error:
        parts.append(f"triton: {ev.triton.error}")
    if ev.exit is not None:
        if ev.exit.signal:
            parts.append(f"signal: {ev.exit.signal}")
        if getattr(ev.exit, "timed_out", False):
            parts.append("timed-out")
    if ev.run is not None:
        parts.append(f"run: {ev.run.target or '?'}")
        flags = sorted(
            f.name
            for f in dataclasses.fields(ev.run)
            if isinstance(getattr(ev.run, f.name), bool) and getattr(ev.run, f.name) and f.name != "gpu_present"
        )
        if flags:
            parts.append("run-facts: " + " ".join(flags))
        if ev.run.probe_failed_kinds:
            parts.append("probes: " + " ".join(sorted(set(ev.run.probe_failed_kinds))))
    if ev.numerics is not None and ev.numerics.mismatch:
        parts.append(f"numerics: {ev.numerics.where or 'mismatch'}")
    parts.extend(key_lines(ev.log.text))
    return "\n".join(parts)


def fingerprint_of(sig: str) -> str:
    return hashlib.sha256(sig.encode("utf-8", "replace")).hexdigest()[:16]


def fingerprint(ev: Evidence) -> str:
    return fingerprint_of(signature(ev))
