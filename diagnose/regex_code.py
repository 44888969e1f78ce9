"""What ``re``'s compiler makes of a pattern, kept with the rule base so that a run does not compile it again.

``re.compile`` parses a pattern and turns the parse into the regex engine's code, then hands the code to
``_sre.compile``; for the thousands of patterns of the rule base and the message catalogue, the parse and
the code generation are most of the cost of the patterns a log tries.  :func:`codes` keeps, by (text,
flags), what ``re.compile`` would hand ``_sre.compile`` for each pattern, and :func:`from_code` builds the
pattern from it, so that a pattern read back from the rule cache (:mod:`diagnose.rule_cache`) is made
without being parsed.  The code depends on the Python that made it: the rule cache's key holds the Python
version, and a code is kept only where the pattern it builds compares equal to ``re.compile``'s own (same
text, flags and code), so the answer of every search is the regex's own.

>>> import re
>>> remember(codes([(r"(?P<name>\\w+) failed", re.I)]))
>>> rx = from_code(r"(?P<name>\\w+) failed", re.I)
>>> rx == re.compile(r"(?P<name>\\w+) failed", re.I), rx.search("kernel Failed").group("name")
(True, 'kernel')
>>> from_code("never kept", 0) is None
True
"""

from __future__ import annotations

import re
import warnings
from array import array
from collections.abc import Iterable

with warnings.catch_warnings():  # the stdlib's own regex parser and compiler (deprecated names)
    warnings.simplefilter("ignore", DeprecationWarning)
    import _sre
    import sre_compile
    import sre_parse

#: (final flags, code as array("I") bytes, groups, group index, index group): the arguments of ``_sre.compile``
Code = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]

_CODES: dict[tuple[str, int], Code] = {}
_WORD = "I" if array("I").itemsize == _sre.CODESIZE else "L"


def code_of(pattern: str, flags: int = 0) -> Code | None:
    """What ``re.compile(pattern, flags)`` hands ``_sre.compile``; None where it cannot be kept (a pattern
    that does not compile, a code word the array cannot hold, a build that differs from ``re.compile``'s)."""
    try:
        code = _code_of(sre_parse.parse(pattern, flags), flags)
        if _build(pattern, code) != re.compile(pattern, flags):
            return None
    except Exception:
        return None
    return code


def _code_of(parsed: sre_parse.SubPattern, flags: int) -> Code:
    """The arguments ``_sre.compile`` takes for ``parsed`` (a pattern's parse, or a part of one)."""
    words = sre_compile._code(parsed, flags)  # type: ignore[attr-defined]
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return (
        int(flags | parsed.state.flags),  # a plain int (a RegexFlag is no part of a rule base's pickle)
        array(_WORD, words).tobytes(),
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )


def _build(pattern: str, code: Code) -> re.Pattern[str]:
    final, words, groups, groupindex, indexgroup = code
    return _sre.compile(pattern, final, array(_WORD, words).tolist(), groups, groupindex, indexgroup)


def codes(keys: Iterable[tuple[str, int]]) -> dict[tuple[str, int], Code]:
    """The codes of the patterns ``keys`` name by (text, flags): ``re.compile(text, flags)``'s."""
    out: dict[tuple[str, int], Code] = {}
    for pattern, flags in keys:
        key = (pattern, int(flags))
        if key in out or not isinstance(pattern, str):
            continue
        code = code_of(*key)
        if code is not None:
            out[key] = code
    return out


def sub_code(parsed: sre_parse.SubPattern, flags: int) -> Code:
    """What ``sre_compile.compile(parsed, flags)`` hands ``_sre.compile`` for a parsed part of a pattern (a
    pattern with no text); :func:`from_sub_code` builds it again.  Raises where the build differs."""
    code = _code_of(parsed, flags)
    if from_sub_code(code) != sre_compile.compile(parsed, flags):
        raise ValueError("the part's code builds another pattern")
    return code


def from_sub_code(code: Code) -> re.Pattern[str]:
    """The pattern (with no text) :func:`sub_code` read."""
    final, words, groups, groupindex, indexgroup = code
    return _sre.compile(None, final, array(_WORD, words).tolist(), groups, groupindex, indexgroup)


def remember(found: dict[tuple[str, int], Code]) -> None:
    _CODES.update(found)


def from_code(pattern: str, flags: int = 0) -> re.Pattern[str] | None:
    """``re.compile(pattern, flags)`` made from its kept code; None where none is kept (or it does not build)."""
    code = _CODES.get((pattern, flags))
    if code is None:
        return None
    try:
        return _build(pattern, code)
    except Exception:  # a code this Python does not take: compiled from the text
        return None


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, made from its kept code where there is one."""
    return from_code(pattern, flags) or re.compile(pattern, flags)
