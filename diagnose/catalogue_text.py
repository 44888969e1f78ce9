"""Text helpers for catalogue patterns and message templates.

- :func:`fill_template`: a tool's printf/format message template with its placeholders filled, to check
  that a family's patterns match the tool's own wording.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]|\{[^{}]*\}|%%")


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
