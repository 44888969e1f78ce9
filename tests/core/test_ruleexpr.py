"""A rule's expression (diagnose/ruleexpr.py): its regex literals are the patterns the rest of kdiag
compiled from the same text, and a pattern that does not compile is still rule-engine's error."""

from __future__ import annotations

import re

import pytest
import rule_engine

from diagnose.regex_literals import compiled
from diagnose.ruleexpr import compile_expression


def test_a_regex_literal_is_the_shared_pattern() -> None:
    pattern = r"(?i)illegal memory access at (?P<where>\S+)"
    escaped = pattern.replace("\\", "\\\\")  # a rule-engine string literal reads its backslashes as escapes
    shared = compiled(pattern)
    re.purge()  # not re's own cache: the pattern kdiag compiled
    rule = compile_expression(f'log_text =~~ "{escaped}"')
    assert rule.statement.expression._right is shared
    assert rule.matches({"log_text": "CUDA error: an Illegal memory access at 0x7f"})
    assert not rule.matches({"log_text": "an illegal memory access"})


def test_anchored_and_searched_literals_answer_as_re() -> None:
    searched = compile_expression('log_text =~~ "out of memory"')
    anchored = compile_expression('log_text =~ "out of memory"')
    text = "RuntimeError: CUDA out of memory"
    assert searched.matches({"log_text": text}) and not anchored.matches({"log_text": text})
    assert anchored.matches({"log_text": "out of memory."})


def test_a_pattern_that_does_not_compile_is_rule_engines_error() -> None:
    with pytest.raises(rule_engine.errors.RegexSyntaxError):
        compile_expression('log_text =~~ "unbalanced ("')
