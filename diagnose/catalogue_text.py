"""Text helpers for catalogue patterns and message templates.

- :func:`required_literal`: the literal every match of a pattern contains (the catalogue's prefilter anchor);
- :func:`fill_template`: a tool's printf/format message template with its placeholders filled, to check
  that a family's patterns match the tool's own wording.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

with warnings.catch_warnings():  # the stdlib's own regex parser (deprecated name, same module as re._parser)
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_parse

_PLACEHOLDER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]|\{[^{}]*\}|%%")
_MIN_ANCHOR = 4
_MIN_BRANCH_ANCHOR = 3


def _runs(data: Any) -> list[str]:
    """The literal runs every match of a parsed (sub)pattern contains: those at its top level and
    those of its groups (a group that is not repeated or optional is always there, ``(?i:...)`` too)."""
    out: list[str] = []
    run: list[str] = []
    for op, arg in [*list(data), (None, None)]:
        if op is sre_parse.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            out.append("".join(run).strip())
        run = []
        if op is sre_parse.SUBPATTERN:
            out.extend(_runs(arg[-1].data))
    return out


def _branch_anchors(op: Any, arg: Any) -> tuple[str, ...] | None:
    """For a top-level alternation (bare, or a group that is one alternation), the longest literal run
    of every alternative (None when an alternative has no run of 3 characters: it could match without
    any)."""
    if op is sre_parse.SUBPATTERN:
        body = list(arg[-1].data)
        if len(body) != 1 or body[0][0] is not sre_parse.BRANCH:
            return None
        op, arg = body[0]
    if op is not sre_parse.BRANCH:
        return None
    anchors = []
    for alternative in arg[1]:
        runs = _runs(getattr(alternative, "data", alternative))
        best = max(runs, key=len, default="")
        if len(best) < _MIN_BRANCH_ANCHOR:
            return None
        anchors.append(best.lower())
    return tuple(dict.fromkeys(anchors))


def required_literals(rx: re.Pattern[str]) -> tuple[str, ...] | None:
    """Literals, lowered, at least one of which every match of ``rx`` contains: the longest top-level
    literal run (4 characters or more), else the alternatives of a top-level alternation that each
    have a run of 3 or more (``(?:must|should|has\\s+to)`` gives must, should, has).  None when
    there are none: the pattern is tried on every text.

    Only top-level runs count: text inside a group, a repeat or an optional part may be absent."""
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
    except Exception:
        return None
    best = max(_runs(parsed.data), key=len, default="")
    if len(best) >= _MIN_ANCHOR:
        return (best.lower(),)
    return _first_branch(parsed.data)


def _first_branch(data: Any) -> tuple[str, ...] | None:
    """The anchors of the first alternation every match goes through (at the top level, or inside a
    group that is always there)."""
    for op, arg in data:
        anchors = _branch_anchors(op, arg)
        if anchors:
            return anchors
        if op is sre_parse.SUBPATTERN:
            inner = _first_branch(arg[-1].data)
            if inner:
                return inner
    return None


def required_literal(rx: re.Pattern[str]) -> str | None:
    """The longest literal run every match of ``rx`` contains, lowered (None when shorter than 4).

    Only top-level runs count: text inside a group, a repeat or an alternative may be absent."""
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
    except Exception:
        return None
    best = max(_runs(parsed.data), key=len, default="")
    return best.lower() if len(best) >= _MIN_ANCHOR else None


#: what a string placeholder is filled with, in turn, when a template is checked against its patterns
STRING_FILLERS = ("x", "sm_90", "9.0", "float16", "cuda:0", "1024", "12.4", "libcudart.so.12")


def fill_template(text: str, filler: str = "x") -> str:
    """A message template with its printf/format placeholders filled with plausible values.

    >>> fill_template("Unsupported .version %s; current version is '%s' (%d%%)", "9.0")
    "Unsupported .version 9.0; current version is '9.0' (42%)"
    """

    def sub(m: re.Match[str]) -> str:
        spec = m.group(0)
        if spec == "%%":
            return "%"
        if spec[-1] in "diouxXcp":
            return "42"
        if spec[-1] in "eEfgG":
            return "4.0"
        return filler  # %s and {name}

    return _PLACEHOLDER.sub(sub, text)
