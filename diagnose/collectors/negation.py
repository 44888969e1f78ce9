"""A failure quoted after "instead of" or "rather than" is what was expected, not what happened: an issue title
asks "Why do I get "illegal memory access" instead of "Cuda error: out of memory"?".  Only a quoted text counts:
unquoted, the words after them go on to the real error as often (TensorFlow's "Attempting to fetch value
instead of handling error Internal: ... CUDA_ERROR_ECC_UNCORRECTABLE").

>>> unsaid('Why do I get "illegal memory access" instead of "Cuda error: out of memory"? (at maxpool2d step)')
'Why do I get "illegal memory access"  ? (at maxpool2d step)'
>>> t = 'got NaN instead of "CUDA error: out of memory"'
>>> negated(t, t.index("out of")), negated("fetch value instead of handling error Internal: out of memory", 48)
(True, False)

A failure named in a condition or a piece of advice is one that may happen, not one that did: vLLM's start-up log
says "CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing
`gpu_memory_utilization`".

>>> t = "CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider it."
>>> hypothetical(t, t.index("out of")), hypothetical("RuntimeError: CUDA error: out of memory", 26)
(True, False)
>>> t = "To avoid running out of memory, set --max-batch. ... CUDA error: out of memory"
>>> hypothetical(t, t.index("out of")), hypothetical(t, t.rindex("out of"))
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


#: a condition or a piece of advice opening the clause the failure is named in ("If you are running out of",
#: "to avoid running out of", "in case you run out of", "may run out of"): nothing ends the clause before it
_IF_BEFORE = re.compile(
    r"(?i:\b(?:if|in\s+case|to\s+(?:avoid|prevent)|unless|may|might|could|would|can)\b)[^.;:!?\n]{0,40}$"
)


def hypothetical(text: str, pos: int) -> bool:
    """Whether the failure named at ``pos`` is in a clause opened by a condition or advice (looked for in the 60
    characters before it, on its line)."""
    start = max(text.rfind("\n", 0, pos) + 1, pos - 60)
    return _IF_BEFORE.search(text, start, pos) is not None
