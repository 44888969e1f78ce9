"""The compiled code of a pattern kept with the rule base (diagnose.regex_code): the pattern built from it
is ``re.compile``'s own, and a pattern with no code kept is compiled from its text."""

from __future__ import annotations

import re

import pytest

from diagnose import regex_code
from diagnose.lazy_regex import LazyPattern
from diagnose.regex_literals import compiled

PATTERNS = [
    (r"CUDA error: (?P<what>[\w ]+)", 0),
    (r"(?i)out of memory.*?(?P<mib>\d+(?:\.\d+)?) MiB", 0),
    (r"^E\d{4} \S+", re.MULTILINE),
    (r"(a)(?P<b>b)?(?(2)c|d)\1", re.IGNORECASE),
    (r"[^\x00-\x7f]+|\u00e9t\u00e9", 0),
    (r"(?a)\w+\s*=\s*\d+", 0),
]
TEXTS = ["CUDA error: an illegal memory access", "RuntimeError: CUDA Out Of Memory. Tried 20.00 MiB", "E0101 x\nE0202 y",
         "abca abd Abcab", "\u00e9t\u00e9 caf\u00e9", "N = 4096"]  # fmt: skip


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_built_from_code_is_the_compiled_pattern(pattern, flags):
    code = regex_code.code_of(pattern, flags)
    assert code is not None
    regex_code.remember({(pattern, flags): code})
    built, want = regex_code.from_code(pattern, flags), re.compile(pattern, flags)
    assert built is not None and built is not want
    assert built == want  # same text, flags and code
    assert (built.groups, built.groupindex, built.flags) == (want.groups, want.groupindex, want.flags)
    for text in TEXTS:
        assert [m.span() for m in built.finditer(text)] == [m.span() for m in want.finditer(text)]
        assert [m.groupdict() for m in built.finditer(text)] == [m.groupdict() for m in want.finditer(text)]


def test_no_code_for_what_does_not_compile():
    assert regex_code.code_of("(unclosed") is None
    assert regex_code.codes([("(unclosed", 0), ("fine", 0)]).keys() == {("fine", 0)}


def test_a_code_that_does_not_build_falls_back_to_the_text(monkeypatch):
    pattern = "kept (?P<x>bad) code"
    monkeypatch.setitem(regex_code._CODES, (pattern, re.UNICODE), (re.UNICODE, b"\xff\xff", 0, {}, ()))
    assert regex_code.from_code(pattern, re.UNICODE) is None
    lazy = LazyPattern(pattern, re.UNICODE)
    assert lazy.search("a kept bad code").group("x") == "bad"  # compiled from its text


def test_lazy_pattern_and_compiled_use_the_kept_code(monkeypatch):
    pattern = r"kdiag-regex-code-test (\d+)"
    regex_code.remember(regex_code.codes([(pattern, 0), (pattern, re.UNICODE)]))
    calls = []
    real_compile = re.compile
    monkeypatch.setattr(re, "compile", lambda *a, **k: calls.append(a) or real_compile(*a, **k))
    assert LazyPattern(pattern, re.UNICODE).search("x kdiag-regex-code-test 42").group(1) == "42"
    assert compiled(pattern).search("kdiag-regex-code-test 7").group(1) == "7"
    assert calls == []  # neither was compiled from its text


def test_codes_are_plain_values() -> None:
    """What is kept pickles with plain types only (the rule cache's unpickler takes no ``re.RegexFlag``)."""
    kept = regex_code.codes([("a(?P<x>b)", re.MULTILINE | re.VERBOSE)])
    ((key, code),) = kept.items()
    assert type(key[1]) is int and type(code[0]) is int
    regex_code.remember(kept)
    assert regex_code.from_code("a(?P<x>b)", re.MULTILINE | re.VERBOSE) == re.compile("a(?P<x>b)", re.M | re.X)


def test_a_part_of_a_pattern_is_built_from_its_code() -> None:
    """The code of a parsed part of a pattern (what an anchor test tries from a literal on) builds the
    pattern ``sre_compile`` makes of that part, and it matches as that one does."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import sre_compile
        import sre_parse

    from diagnose.regex_code import from_sub_code, sub_code

    parsed = sre_parse.parse(r"(?i)(?P<subject>\w+)\s+must\s+be\s+(?P<need>\d+)")
    part = sre_parse.SubPattern(parsed.state, list(parsed.data)[2:])
    rx = from_sub_code(sub_code(part, 0))
    assert rx == sre_compile.compile(part, 0)
    m = rx.match("x MUST be 4", 2)
    assert m is not None and m.group("need") == "4" and m.group("subject") is None
    assert rx.match("x must be four", 2) is None and rx.match("x must be 4", 0) is None
