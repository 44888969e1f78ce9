"""The CUDA runtime's and driver's error names, codes and messages (``diagnose/data/cuda_errors.json``, written by
``scripts/gen-cuda-errors``), and the patterns that find a message in a log: read by the CUDA error collector
(:mod:`diagnose.collectors.cuda_errors`), the failure-line patterns and the rule cache, which keeps the patterns'
compiled code (a table of its own so that the rule base's layer reads it without importing the collectors)."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from diagnose import regex_code

_DATA = Path(__file__).resolve().parent / "data" / "cuda_errors.json"

# a bare runtime message is trusted anywhere only when it is this long (short ones are too generic)
_DISTINCTIVE_LEN = 26


@dataclass(frozen=True)
class _Tables:
    by_name: dict[str, tuple[int, str]]  # runtime name → (code, message)
    by_code: dict[int, str]  # runtime code → name
    by_message: dict[str, str]  # message (lower case) → runtime name
    driver: dict[str, str | None]  # CUDA_ERROR_X → runtime name
    driver_by_code: dict[int, str | None]
    message_re: re.Pattern[str]  # any known message
    long_message_re: re.Pattern[str]  # distinctive messages only
    tail_re: re.Pattern[str]  # ": <any known message>" at a line's end (lower-cased text)


@functools.cache
def tables() -> _Tables:
    """The generated name/code/message table (loaded once)."""
    data = json.loads(_DATA.read_text())
    by_name: dict[str, tuple[int, str]] = {}
    by_code: dict[int, str] = {}
    by_message: dict[str, str] = {}
    for row in data["runtime"]:
        name, code, msg = row["name"], int(row["code"]), row["message"]
        by_name[name] = (code, msg)
        by_code.setdefault(code, name)
        if name not in ("cudaSuccess", "cudaErrorApiFailureBase"):
            by_message.setdefault(msg.lower(), name)
    for row in data.get("extra_messages", []):
        by_message.setdefault(row["message"].lower(), row["name"])
    driver = {row["name"]: row["runtime"] for row in data["driver"]}
    driver_by_code = {int(row["code"]): row["runtime"] for row in data["driver"]}
    # matched against the lower-cased line: a trie-shaped pattern is ~10x faster than a flat alternation
    # from the code kept with the rule base where there is one (diagnose.regex_code): large patterns
    every = _trie_pattern(list(by_message))  # (made once: the message and the tail patterns hold it)
    message_re = regex_code.compile_pattern(every)
    long_re = regex_code.compile_pattern(_trie_pattern([m for m in by_message if len(m) >= _DISTINCTIVE_LEN]))
    tail_re = regex_code.compile_pattern(r":[ \t]+(" + every + r")[.!]?[ \t]*$", re.MULTILINE)
    return _Tables(by_name, by_code, by_message, driver, driver_by_code, message_re, long_re, tail_re)


@functools.cache
def _docs() -> dict[str, str]:
    return dict(json.loads(_DATA.read_text()).get("runtime_docs") or {})


def doc(name: str | None) -> str | None:
    """NVIDIA's own description of a runtime status (the comment above it in the toolkit's ``driver_types.h``), or
    None.

    >>> doc("cudaErrorFileNotFound")
    'This indicates that the file specified was not found.'
    >>> doc("cudaErrorNoSuchThing") is None
    True
    """
    return _docs().get(name) if name else None


def _trie_pattern(words: list[str]) -> str:
    """A regex matching any of ``words`` (longest first), with shared prefixes factored out."""
    trie: dict[str, dict] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        ends = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return build(trie)
