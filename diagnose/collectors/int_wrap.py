"""A count or size the log prints both as itself and as the number a 32-bit integer wraps it to.

A value ``v`` between 2^31 and 2^32 stored in a signed 32-bit integer reads back as ``v - 2^32``: 2147483649
becomes -2147483647.  A value past 2^32 stored in an unsigned 32-bit integer reads back as ``v mod 2^32``
(13273201558 edges become 388299670), and in a signed one as that, less 2^32 when it is 2^31 or more.  When a
log prints both numbers — the size a program asked for and the launch bound, shape, index or count some layer
kept of it — the value went through a 32-bit integer on the way, whichever tool, framework or print statement
shows them.  It is arithmetic, not wording: a size past what a 32-bit integer holds.

>>> wrapped('''print(launch.bounds.size)      # 2147483649
... print(launch.bounds.shape[0])  # -2147483647''')
'2147483649 -> -2147483647'
>>> wrapped("n = 3000000000, grid = -1294967296")
'3000000000 -> -1294967296'
>>> wrapped("n = 3000000000 elements") is None
True
>>> wrapped("(1413511393 nodes, 13273201558 directed edges)... encountered more than 388299670 edges")
'13273201558 -> 388299670'
>>> wrapped("size 4294967297, chunk 1") is None  # a remainder this small is no evidence
True
>>> wrapped("offset -2147483647, seed 2147483649x") is None
True
"""

from __future__ import annotations

import re

#: a decimal integer from 2^31 + 1 up to 2^48 (ten to fifteen digits), not part of a longer number, word or decimal
_BIG = re.compile(r"(?<![\w.])([2-9]\d{9}|[1-9]\d{10,14})(?![\w.])")
#: the digits every such value is: a search that skips to them (no lookbehind tried at every place of the log)
_DIGITS = re.compile(r"[2-9]\d{9}|[1-9]\d{10}")
_LIMIT = 2**32
#: an unsigned wrap below this is no evidence: small numbers are printed everywhere
_MIN_REMAINDER = 2**16
_SCAN = 200_000


def _printed(number: str, head: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(number)}(?![\w.])", head) is not None


def wrapped(text: str) -> str | None:
    """``"<value> -> <its 32-bit wrap>"`` for the first value past 2^31 whose wrapped value the log also prints."""
    head = text[:_SCAN]
    if _DIGITS.search(head) is None:
        return None
    seen: set[str] = set()
    for m in _BIG.finditer(head):
        digits = m.group(1)
        value = int(digits)
        if digits in seen or value <= 2**31:
            continue
        seen.add(digits)
        rest = value % _LIMIT
        wraps = [str(rest)] if value >= _LIMIT and rest >= _MIN_REMAINDER else []
        if rest >= 2**31:
            wraps.append(f"-{_LIMIT - rest}")  # the signed reading
        for w in wraps:
            if _printed(w, head):
                return f"{value} -> {w}"
    return None
