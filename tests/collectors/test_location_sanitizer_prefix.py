"""location's compute-sanitizer line patterns read their "=====" prefix once (no backtracking): the same matches as
the backtracking form ``^[=\\s]*=+\\s+``, on every arrangement of a few pieces of such lines."""

from __future__ import annotations

import itertools
import re

from diagnose.collectors import location as L

PIECES = ("=", "=====", " ", "\t", "\n", "at x", "Read access at y", "Device Frame:f", "Host Frame: h", "z")
REST = {
    "_SAN_AT": r"(?:(?:and )?(?:Read|Write) (?:Thread \([^)]*\) |access ))?at (?P<where>[^\n]+)$",
    "_SAN_DEVICE": r"Device Frame:\s*(?P<where>[^\n]+)$",
    "_SAN_HOST": r"Host Frame:\s*(?P<where>[^\n]+)$",
}


def test_sanitizer_lines_match_as_the_backtracking_form() -> None:
    texts = ["".join(p) for n in range(1, 6) for p in itertools.product(PIECES, repeat=n)]
    for name, rest in REST.items():
        backtracking = re.compile(r"^[=\s]*=+\s+" + rest, re.MULTILINE)
        ours = getattr(L, name)
        found = 0
        for text in texts:
            want = [(m.span(), m["where"]) for m in backtracking.finditer(text)]
            assert [(m.span(), m["where"]) for m in ours.finditer(text)] == want, (name, text)
            found += bool(want)
        assert found > 100, name
