"""A failure quoted after "instead of" or "rather than" is what was expected, not what happened: an issue title
asks "Why do I get "illegal memory access" instead of "Cuda error: out of memory"?".  Only a quoted text counts:
unquoted, the words after them go on to the real error as often (TensorFlow's "Attempting to fetch value
instead of handling error Internal: ... CUDA_ERROR_ECC_UNCORRECTABLE").

>>> unsaid('Why do I get "illegal memory access" instead of "Cuda error: out of memory"? (at maxpool2d step)')
'Why do I get "illegal memory access"  ? (at maxpool2d step)'
>>> t = 'got NaN instead of "CUDA error: out of memory"'
>>> negated(t, t.index("out of")), negated("fetch value instead of handling error Internal: out of memory", 48)
(True, False)
"""

from __future__ import annotations

import re

_QUOTED = r"""(?:"[^"\n]*"|'[^'\n]*'|“[^”\n]*”|‘[^’\n]*’|`[^`\n]*`)"""
_LEAD = r"(?i:\b(?:instead of|rather than))\s+(?:(?:an?|the)\s+)?"
#: "instead of" / "rather than", then a quoted text
_SPAN = re.compile(_LEAD + _QUOTED)
#: the same, with a position inside the quote
_BEFORE = re.compile(_LEAD + r"""["'“‘`][^"'”’`\n]*$""")


def unsaid(line: str) -> str:
    """``line`` without the quoted texts it names as expected instead of what happened."""
    if "instead" not in line and "rather" not in line and "INSTEAD" not in line:
        return line
    return _SPAN.sub(" ", line)


def negated(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in such a quoted text (its start looked for in the 80 characters before it)."""
    start = max(text.rfind("\n", 0, pos) + 1, pos - 80)
    return _BEFORE.search(text, start, pos) is not None
