"""A compiled regex read back from the rule cache (:mod:`diagnose.rule_cache`), compiled when first used.

The bundled message catalogue holds more than a thousand patterns; a ``kdiag classify`` of one log tries
the few whose literals the log holds.  The rule cache stores a pattern as its text and flags (as pickle
stores any ``re.Pattern``), and reads it back as a :class:`LazyPattern`, which answers ``pattern`` and
``flags`` at once and compiles the regex the first time anything else is asked of it.  It compares and
hashes by its text and flags, and pickles as the ``re.Pattern`` it stands for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any


class LazyPattern:
    """``re.compile(pattern, flags)``, made on first use; answers like the ``re.Pattern`` it stands for."""

    __slots__ = ("_rx", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._rx: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        rx = self._rx
        if rx is None:
            from diagnose.regex_code import from_code  # the code kept with the rule base, where there is one

            rx = self._rx = from_code(self.pattern, self.flags) or re.compile(self.pattern, self.flags)
        return rx

    # the calls the catalogue and the collectors make, spelt out (no __getattr__ on the way)
    def search(self, string: str, *args: Any) -> re.Match[str] | None:
        return (self._rx or self.compiled()).search(string, *args)

    def match(self, string: str, *args: Any) -> re.Match[str] | None:
        return (self._rx or self.compiled()).match(string, *args)

    def fullmatch(self, string: str, *args: Any) -> re.Match[str] | None:
        return (self._rx or self.compiled()).fullmatch(string, *args)

    def finditer(self, string: str, *args: Any) -> Iterator[re.Match[str]]:
        return (self._rx or self.compiled()).finditer(string, *args)

    def __getattr__(self, name: str) -> Any:  # groups, groupindex, sub, findall, split, ...
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyPattern | re.Pattern):
            return self.pattern == other.pattern and self.flags == other.flags
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return re._compile, (self.pattern, self.flags)  # type: ignore[attr-defined]  # as an re.Pattern pickles

    def __repr__(self) -> str:
        return f"<LazyPattern {self.pattern!r}>"


def real(rx: Any) -> Any:
    """The ``re.Pattern`` itself: ``rx``, or the one a :class:`LazyPattern` stands for (compiled now)."""
    return rx.compiled() if isinstance(rx, LazyPattern) else rx
