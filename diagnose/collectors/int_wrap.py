"""A count or size the log prints both as itself and as the negative number a 32-bit integer wraps it to.

A value ``v`` between 2^31 and 2^32 stored in a signed 32-bit integer reads back as ``v - 2^32``: 2147483649
becomes -2147483647.  When a log prints both numbers — the size a program asked for and the launch bound,
shape, index or count some layer kept of it — the value went through an int32 on the way, whichever tool,
framework or print statement shows them.  It is arithmetic, not wording: a size past what an int32 holds.

>>> wrapped('''print(launch.bounds.size)      # 2147483649
... print(launch.bounds.shape[0])  # -2147483647''')
'2147483649 -> -2147483647'
>>> wrapped("n = 3000000000, grid = -1294967296")
'3000000000 -> -1294967296'
>>> wrapped("n = 3000000000 elements") is None
True
>>> wrapped("offset -2147483647, seed 2147483649x") is None
True
"""

from __future__ import annotations

import re

#: a decimal integer from 2^31 + 1 to 2^32 - 1 (ten digits, 2 to 4 first), not part of a longer number, word or
#: decimal
_BIG = re.compile(r"(?<![\w.])([2-4]\d{9})(?![\w.])")
#: the digits every such value is: a search that skips to them (no lookbehind tried at every place of the log)
_DIGITS = re.compile(r"[2-4]\d{9}")
_LIMIT = 2**32
_SCAN = 200_000


def wrapped(text: str) -> str | None:
    """``"<value> -> <its int32 wrap>"`` for the first value past 2^31 whose wrapped value the log also prints."""
    head = text[:_SCAN]
    if "-" not in head or _DIGITS.search(head) is None:
        return None
    seen: set[str] = set()
    for m in _BIG.finditer(head):
        digits = m.group(1)
        value = int(digits)
        if digits in seen or not 2**31 < value < _LIMIT:
            continue
        seen.add(digits)
        neg = f"-{_LIMIT - value}"
        if re.search(rf"(?<![\w.-]){re.escape(neg)}(?![\w.])", head):
            return f"{value} -> {neg}"
    return None
