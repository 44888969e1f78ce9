"""failure_lines (diagnose/failure_lines.py) remembers what it worked out for the last log it read, since
its callers ask about one log in turn with different limits: each answer is the one a fresh reading
gives, in any order of limits, and so is whether it finds one; and its keyword pass finds the lines a plain search per keyword finds."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.failure_lines import (
    _BY_KEYWORD,
    _LINE_STARTS,
    START,
    _candidate_lines,
    failure_lines,
    forget,
    has_failure_line,
)
from diagnose.inputs import load_yaml

ROOT = Path(__file__).resolve().parents[2]


def _logs() -> list[str]:
    """The public corpus's logs and the failure-line fixtures (each with its .source.yaml)."""
    logs = []
    for path in sorted((ROOT / "corpus" / "public").glob("*.yaml")):
        logs += [str(c["log"]) for c in load_yaml(path.read_text()) or [] if isinstance(c, dict) and c.get("log")]
    logs += [p.read_text(errors="replace") for p in sorted((ROOT / "tests" / "fixtures").rglob("*.log"))]
    return logs


def _fresh(text: str, limit: int) -> list[tuple[int, str]]:
    """``failure_lines(text, limit)`` read afresh: nothing remembered of any log applies."""
    forget()
    try:
        return failure_lines(text, limit)
    finally:
        forget()


@pytest.mark.parametrize("order", [(1, 3, 10), (10, 3, 1), (3, 1, 10, 3)])
def test_each_limit_answers_as_a_fresh_reading(order: tuple[int, ...]) -> None:
    logs = _logs()
    assert len(logs) > 100
    seen = 0
    for text in logs:
        fresh = {limit: _fresh(text, limit) for limit in order}
        for limit in order:
            got = failure_lines(text, limit)
            assert got == fresh[limit]
            got.append((0, "a caller's own list"))  # callers may change what they get
            assert failure_lines(text, limit) != got
            assert failure_lines((text + " ")[:-1], limit) == fresh[limit]  # an equal log, another object
            seen += bool(got[:-1])
    assert seen > 50


def test_a_log_read_again_after_others_answers_as_before() -> None:
    logs = _logs()
    first = [failure_lines(text, 3) for text in logs]
    assert [failure_lines((text + " ")[:-1], 3) for text in logs] == first
    assert [_fresh(text, 3) for text in logs] == first


def test_has_failure_line_is_whether_one_failure_line_is_found() -> None:
    answers = set()
    for text in _logs():
        fresh = bool(_fresh(text, 1))  # (nothing remembered after it: the first question is asked alone)
        for then in (1, 3, None):  # alone, and after an answer for the same log is remembered
            got = has_failure_line(text)
            assert got == fresh
            answers.add(got)
            if then is not None:
                failure_lines(text, then)
    assert answers == {True, False}


def _candidate_lines_per_keyword(text: str) -> dict[int, set[int]]:
    """The candidate lines by one str.find loop per keyword (what the automaton pass replaces)."""
    lower = text.lower()
    starts: dict[int, set[int]] = {}
    for k, idx in _BY_KEYWORD.items():
        if k == START:
            continue
        i = lower.find(k)
        while i >= 0:
            starts.setdefault(lower.rfind("\n", 0, i) + 1, set()).update(idx)
            nl = lower.find("\n", i)
            if nl < 0:
                break
            i = lower.find(k, nl)
    for m in _LINE_STARTS.finditer(text):
        starts.setdefault(text.rfind("\n", 0, m.start() + 1) + 1, set()).update(_BY_KEYWORD[START])
    return starts


def test_keyword_pass_finds_the_lines_of_a_search_per_keyword() -> None:
    texts = [*_logs(), "error error\nno\n\nERROR: x fatal\nterminate", "errorfatal", "", "\n\n"]
    for text in texts:
        assert _candidate_lines(text) == _candidate_lines_per_keyword(text)
