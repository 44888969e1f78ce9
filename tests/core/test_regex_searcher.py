"""The catalogue's search of a pattern without an anchor plan (diagnose.regex_literals.searcher): tried only
at the lines a ``(?m)^`` pattern can start on, or where its leading literals stand, it is ``rx.search``
itself (the leftmost match, the same groups)."""

from __future__ import annotations

import random
import re

import pytest

from diagnose.catalogue import default_catalogue
from diagnose.regex_anchor import start_find
from diagnose.regex_literals import line_find, searcher
from tests.core.test_regex_anchor import _family_texts, _real_logs


@pytest.mark.parametrize(
    ("pattern", "has_plan"),
    [
        # a lookahead right after the `^` that stays on the line: its literals stand on the match's first line
        (r"(?im)^(?=[^\n]*?(?:error|failed))(?P<subject>\w+) must be (?P<v>\d+)", True),
        # the first items, up to the first that can cross a newline
        (r"(?m)^[ \t]*NVMLError\w*:\s*Not Supported", True),
        # `\s*` may cross lines before the literal, and `.` may in DOTALL: the line of the literal says nothing
        (r"(?m)^\s*foo\s+error", False),
        (r"(?ms)^(?=.*error)x", False),
        # without MULTILINE `^` is the text's start: the search tries one place already
        (r"^(?=[^\n]*error)x", False),
    ],
)
def test_line_plans(pattern: str, has_plan: bool) -> None:
    assert (line_find(re.compile(pattern)) is not None) is has_plan


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # the match starts on a line before the literal's when what precedes it may hold a newline
        (r"(?m)^(?=[^\n]*error)(?:x|\s)*y", "a\nx error\n\nx\ny"),
        (r"(?m)^(?=[^\n]*error)(?:x|\s)*y", "error\nx\ny"),
        (r"(?m)^[ \t]*abc\n?def", "  abc\ndef"),
        # the leftmost line wins, whichever literal it holds
        (r"(?im)^(?=[^\n]*?(?:fatal|error))\w+: (\d+)", "a: 1 FATAL\nb: 2 error"),
        # text beyond ASCII: searched in full (case folding)
        (r"(?im)^(?=[^\n]*?error)\w+: (\d+)", "\u212a: 1 ERROR"),
        # short leading literals: a match at each place one stands
        (r"(?i)\b(?P<s>(?:kv|head)\w*)\s*=\s*(?P<n>\d+) is not supported", "HEAD_dim = 3 kv = 5 is not supported"),
    ],
)
def test_searcher_cases(pattern: str, text: str) -> None:
    rx = re.compile(pattern)
    got, want = searcher(rx)(text), rx.search(text)
    assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))


def test_start_plans_need_two_characters() -> None:
    assert start_find(re.compile(r"(?i)\b(?:kv|head)_\w+")) is not None
    assert start_find(re.compile(r"(?:x|head)_\w+")) is None
    assert start_find(re.compile(r"\w+ failed")) is None


def test_searcher_is_the_search_on_the_catalogue() -> None:
    """Over every catalogue pattern with a line or start plan: the families' own texts, real logs, and their
    lines shuffled together (so that literals and matches fall on other lines than their own)."""
    patterns = [rx for fam in default_catalogue().families for rx in fam.patterns]
    texts = _family_texts() + _real_logs()[:40]
    lines = [line for t in texts for line in t.splitlines()] + ["", "  ", "\t"]
    rng = random.Random(7)
    texts += ["\n".join(rng.choice(lines) for _ in range(rng.randint(1, 10))) for _ in range(100)]
    texts += ["x" * 30 + "\u00e9 " + t for t in _family_texts()[:30]]
    planned = found = 0
    for rx in patterns:
        search = searcher(rx)
        if getattr(search, "__self__", None) is not None:  # the pattern's own search: nothing to compare
            continue
        planned += 1
        for text in texts:
            got, want = search(text), rx.search(text)
            assert (got and (got.span(), got.groupdict())) == (want and (want.span(), want.groupdict())), rx.pattern
            found += want is not None
    assert planned > 500 and found > 500
