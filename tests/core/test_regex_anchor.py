"""The anchor test before a catalogue search (diagnose/regex_anchor.py): False only where the pattern
cannot match, and the catalogue's scan with it finds what every pattern searched in full finds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from diagnose.catalogue import default_catalogue
from diagnose.catalogue_text import STRING_FILLERS, fill_template
from diagnose.regex_anchor import anchor_test

ROOT = Path(__file__).resolve().parents[2]


def _real_logs() -> list[str]:
    """The logs of the public corpus and the collectors' captured fixtures (each with its source)."""
    logs = []
    for path in sorted((ROOT / "corpus" / "public").glob("*.yaml")):
        logs += [str(c["log"]) for c in yaml.safe_load(path.read_text()) or [] if isinstance(c, dict) and c.get("log")]
    logs += [p.read_text(errors="replace") for p in sorted((ROOT / "tests" / "fixtures").rglob("*.log"))]
    return logs


def _family_texts() -> list[str]:
    """Each family's own examples and message samples (or templates filled): texts its patterns match."""
    out = []
    for fam in default_catalogue().families:
        out += [str(e["log"]) for e in fam.examples]
        for msg in fam.messages:
            out += [msg.sample] if msg.sample is not None else [fill_template(msg.text, f) for f in STRING_FILLERS]
    return out


@pytest.mark.parametrize(
    ("pattern", "text", "may"),
    [
        # a literal run: tried where "must" stands
        (r"(?i)(?P<subject>\w+)\s+must\s+be\s+(?P<need>\d+)", "X MUST be 4", True),
        (r"(?i)(?P<subject>\w+)\s+must\s+be\s+(?P<need>\d+)", "x must be four; y must go", False),
        # an alternation whose branches start with literals
        (r"(?:failed to|could not) (?:load|open) (\S+)", "could not open libcuda.so", True),
        (r"(?:failed to|could not) (?:load|open) (\S+)", "could not close it; failed to see", False),
        # case kept where the pattern keeps it
        (r"Error: (\d+)", "error: 5", False),
        # a lookbehind before the literal is tried with it, on the text before it
        (r"(?<=x)abc\d", "xabc1", True),
        (r"(?<=x)abc\d", "yabc1 xabc", False),
        # so is a word boundary, in each branch
        (r"(?i)\bjax(?:lib)?\b|XlaRuntimeError|\bpallas\b", "import jaxlib", True),
        (r"(?i)\bjax(?:lib)?\b|XlaRuntimeError|\bpallas\b", "ajax pallasx", False),
        # a case fold beyond ASCII: the Kelvin sign folds to k, so the text is searched, not str.lower()ed
        ("(?i)kelvin", "\u212aelvin", True),
    ],
)
def test_anchor_test_cases(pattern: str, text: str, may: bool) -> None:
    rx = re.compile(pattern)
    test = anchor_test(rx)
    assert test is not None
    assert test(text) is may
    if not may:
        assert rx.search(text) is None


@pytest.mark.parametrize(
    "pattern",
    [
        r"\d+\.\d+",  # no literal of 3 characters
        r"(\w+) is \1",  # the rest refers to a group before it
        "(?i)\u212aelvin",  # a literal whose case fold is not ASCII's
    ],
)
def test_no_anchor_test(pattern: str) -> None:
    assert anchor_test(re.compile(pattern)) is None


def test_anchor_tests_are_sound_on_the_catalogue() -> None:
    """Over every pattern of the catalogue and texts its families match (and real logs): where the
    test says no, the pattern finds nothing; and the test does say no (it is no pass-through)."""
    texts = _family_texts() + _real_logs()[:80]
    rejected = 0
    for fam in default_catalogue().families:
        for rx in fam.patterns:
            test = anchor_test(rx)
            if test is None:
                continue
            for text in texts:
                if not test(text):
                    rejected += 1
                    assert rx.search(text) is None, (fam.id, rx.pattern, text[:200])
    assert rejected > 1000


def _scan_in_full(text: str) -> list[tuple[str, int, dict[str, str]]]:
    """What Catalogue.scan answers, with every pattern searched over the whole text (no prefilter); a match
    on a traceback's quoted source line gives way to the exception line below it, as in the scan."""
    from diagnose.catalogue import _later_match, source_echo

    hits: dict[str, tuple[str, int, dict[str, str]]] = {}
    for fam in default_catalogue().families:
        for rx in fam.patterns:
            m = rx.search(text)
            if m is None:
                continue
            if source_echo(text, m.start()):
                m = _later_match(rx, text, m, lambda g: source_echo(text, g.start())) or m
            line = text.count("\n", 0, m.start()) + 1
            if fam.id not in hits or line < hits[fam.id][1]:
                hits[fam.id] = (fam.id, line, {k: v for k, v in m.groupdict().items() if v is not None})
    return sorted(hits.values(), key=lambda h: (h[1], h[0]))


def test_scan_finds_what_a_full_search_finds() -> None:
    cat = default_catalogue()
    logs = _real_logs()
    assert len(logs) > 100
    found = 0
    for text in logs[:60] + logs[-60:]:
        got = [(h.family.id, h.line, h.groups) for h in cat.scan(text)]
        assert got == _scan_in_full(text)
        found += bool(got)
    assert found > 10


def test_anchor_tests_are_sound_on_the_rules_text_patterns() -> None:
    """The same over the regexes the rules run on a log (their pre-checks use the test): their own match
    and no-match examples, and real logs."""
    from diagnose.rules import default_rules

    rules = list(default_rules())
    texts = [e.log for r in rules for e in (*r.match_examples, *r.no_match_examples) if e.log]
    texts += _real_logs()[:40]
    rejected = 0
    for pattern in sorted({p for r in rules for p in r.text_patterns}):
        try:
            rx = re.compile(pattern)
        except re.error:
            continue
        test = anchor_test(rx)
        if test is None:
            continue
        for text in texts:
            if not test(text):
                rejected += 1
                assert rx.search(text) is None, (pattern, text[:200])
    assert rejected > 1000


@pytest.mark.parametrize(
    ("pattern", "text", "may"),
    [
        # an optional item first: its literal or what follows it starts the match
        (r"(?i)(?:is )?only supported on", "Only supported on sm_90", True),
        (r"(?i)(?:is )?only supported on", "is supported on", False),
        (r"(?:abc)*xyz", "xyz", True),
        (r"(?:abc)*xyz", "abcxy", False),
        (r"(?:abc)+xyz", "zabcxyz", True),
    ],
)
def test_optional_first_items(pattern: str, text: str, may: bool) -> None:
    rx = re.compile(pattern)
    test = anchor_test(rx)
    assert test is not None
    assert test(text) is may
    assert (rx.search(text) is not None) is may


def test_the_first_anchor_is_asked_too() -> None:
    """A frequent long literal late in the pattern ("error") is not all the test asks: the rest from the
    first anchoring item ("load...(): ... error") must match too."""
    rx = re.compile(r"(?i)\b\w*(?:load|read)\w*\(\)\s*:\s*(?:invalid|error)")
    test = anchor_test(rx)
    assert test is not None
    assert test("loader(): error") is True
    assert test("an error, then load() again") is False
    assert rx.search("an error, then load() again") is None


def test_an_alternation_is_tested_branch_by_branch() -> None:
    """A pattern that is one alternation, with no literal that starts every match (``\\bsm_?`` holds two
    characters), is tested one branch at a time where each branch has a test of its own."""
    rx = re.compile(r"(?i)(?:only supports?|requires?)[^\n]{0,60}?\bsm_?\d{2}\b|\bsm_?\d+\s*(?:required|needed)\b")
    test = anchor_test(rx)
    assert test is not None
    for text, may in (
        ("This kernel REQUIRES sm_90", True),
        ("sm_80 required", True),
        ("requires_grad=True\nsm_80 is what we have", False),
        ("nothing to see here", False),
    ):
        assert test(text) is may
        assert (rx.search(text) is not None) is may
    # a branch without a test of its own: none for the whole
    assert anchor_test(re.compile(r"(?:requires?) sm_\d+|\d+\.\d+")) is None


def test_anchor_search_answers_as_the_search() -> None:
    """:func:`anchor_search` is ``rx.search(text) is not None`` exactly, over the rules' text patterns and
    the catalogue's patterns, on the rules' own examples, the families' texts and real logs."""
    from diagnose.regex_anchor import anchor_search
    from diagnose.rules import default_rules

    rules = list(default_rules())
    texts = [e.log for r in rules for e in (*r.match_examples, *r.no_match_examples) if e.log]
    texts += _real_logs()[:60] + _family_texts()[:400]
    patterns = {re.compile(p) for r in rules for p in r.text_patterns if _compiles(p)}
    patterns |= {rx for fam in default_catalogue().families for rx in fam.patterns}
    decided = found = 0
    for rx in sorted(patterns, key=lambda rx: rx.pattern):
        search = anchor_search(rx)
        if search is None:
            continue
        decided += 1
        for text in texts:
            hit = rx.search(text) is not None
            assert search(text) is hit, (rx.pattern, text[:200])
            found += hit
    assert decided > 500
    assert found > 100


def test_anchor_search_of_an_alternation() -> None:
    rx = re.compile(r"(?i)(?:only supports?|requires?)[^\n]{0,60}?\bsm_?\d{2}\b|\bsm_?\d+\s*(?:required|needed)\b")
    from diagnose.regex_anchor import anchor_search

    search = anchor_search(rx)
    assert search is not None
    for text in ("This kernel REQUIRES sm_90", "sm_80 required", "nothing needed here", "requires_grad\nsm_8"):
        assert search(text) is (rx.search(text) is not None)


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def test_anchor_find_is_the_search_on_the_catalogue() -> None:
    """Over every catalogue pattern whose plan makes one, and texts its families match (and real logs): the
    search at the anchor's places is ``rx.search`` itself (the leftmost match, the same groups)."""
    from diagnose.regex_anchor import anchor_find, plans, remember_plans

    patterns = [rx for fam in default_catalogue().families for rx in fam.patterns]
    remember_plans(plans(patterns))
    texts = _family_texts() + _real_logs()[:80] + ["x" * 50 + "\u00e9 " + t for t in _family_texts()[:50]]
    with_find = found = 0
    for rx in patterns:
        find = anchor_find(rx)
        if find is None:
            continue
        with_find += 1
        for text in texts:
            got, want = find(text), rx.search(text)
            assert (got and (got.span(), got.groupdict())) == (want and (want.span(), want.groupdict())), rx.pattern
            found += want is not None
    assert with_find > 500 and found > 500


def test_a_kept_reading_answers_as_the_parse_tree() -> None:
    """A pattern without a plan (a later anchor, an alternation's branches): the test built from its
    reading kept with the rule base (pickled, as diagnose.rule_cache keeps it) answers as the one read
    from its parse tree, on the real logs and the families' own texts."""
    import pickle

    from diagnose import regex_anchor as RA

    texts = _real_logs() + _family_texts()
    patterns = [
        re.compile(r"(?i)(?P<subject>\w+)\s+must\s+be\s+(?P<need>\d+)"),
        re.compile(r"(?i)\w+ (?:out of memory|illegal memory access) at (?P<where>\S+)|cudaError\w+: (?P<msg>.+)"),
    ]
    patterns += [rx for fam in default_catalogue().families for rx in fam.patterns]
    kept = pickle.loads(pickle.dumps(RA.readings(patterns)))
    assert any(r is not None and r[0] == "branches" for r in kept.values())
    assert any(r is not None and r[0] == "seq" and any(t[2] is not None for t in r[1]) for r in kept.values())
    for rx in patterns:
        key = (rx.pattern, rx.flags)
        if key not in kept:
            continue
        read = RA._reading(rx)
        if read is None:
            assert kept[key] is None
            continue
        live, stored = RA._built(read, rx), RA._built(kept[key], rx)
        assert [live(t) for t in texts] == [stored(t) for t in texts], rx.pattern
