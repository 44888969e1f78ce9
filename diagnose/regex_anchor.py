"""A necessary test before a regex search: where a literal that starts part of every match stands, the
rest of the pattern must match from there.

A pattern is a sequence of items; when one item's every match starts with one of a few literals (a run
of literal characters, or an alternation whose branches each start with one), every match of the whole
pattern holds, at an occurrence of such a literal, a match of the items from that one to the end.  So
:func:`anchor_test` answers a test that finds the literals with ``str.find`` and tries the rest of the
pattern only there (``rest.match(text, i)``: anchored, no scan), many times cheaper than a search with
a leading word pattern or a case-folded alternation.  It is False only where the pattern cannot match;
a caller still runs the pattern itself on every text it lets through, so the answer is the pattern's.

>>> test = anchor_test(re.compile(r"(?i)(?P<subject>\\w+)\\s+must\\s+be\\s+(?P<need>\\d+)"))
>>> test("x must be 4"), test("x must be four"), test("nothing here")
(True, False, False)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from diagnose.lazy_regex import real
from diagnose.regex_code import Code, from_sub_code, sub_code

with warnings.catch_warnings():  # the stdlib's own regex parser and compiler (deprecated names)
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_compile
    import sre_constants as _C
    import sre_parse

_LAST_LOWERED: tuple[str, str] = ("", "")


def lowered(s: str) -> str:
    """``s.lower()``, remembered for the last string: the collectors, the catalogue and every rule's
    regex read the same log text (also :func:`diagnose.regex_literals.lowered`)."""
    global _LAST_LOWERED
    last = _LAST_LOWERED
    if last[0] is s:
        return last[1]
    low = s.lower()
    _LAST_LOWERED = (s, low)
    return low


_REPEATS = (_C.MAX_REPEAT, _C.MIN_REPEAT) + ((_C.POSSESSIVE_REPEAT,) if hasattr(_C, "POSSESSIVE_REPEAT") else ())
_MIN_LITERAL = 3  # shorter literals are found too often to save a search


#: the anchor reading of patterns, by (text, flags), where using it again needs no parse: the literals that
#: start every match (as the test looks for them) and whether the case folds, or None for a pattern with no
#: test (kept with the rule base, diagnose.rule_cache: a run does not read each pattern's parse tree again)
_PLANS: dict[tuple[str, int], tuple[tuple[str, ...], bool] | None] = {}
_NO_PLAN = ((), False)  # a pattern whose test needs its parse tree (a later anchor, an alternation's branches)


#: a test read from a pattern's parse tree: ("seq", tests) for a sequence, ("branches", ((tests, code of the
#: branch), ...)) for an alternation whose branches each have tests; each test is (literals, whether the case
#: folds, code of the rest of the pattern tried where a literal stands, or None: the whole sequence)
_Tests = tuple[tuple[tuple[str, ...], bool, Code | None], ...]
Reading = tuple[str, Any]
#: the readings of patterns without a plan (:data:`_NO_PLAN`), by (text, flags), None for a pattern with no
#: test: kept with the rule base too (diagnose.rule_cache), so a run neither parses such a pattern nor
#: compiles the rests of it its test tries
_READINGS: dict[tuple[str, int], Reading | None] = {}
_UNREAD = ("", ())


def readings(patterns: Iterable[re.Pattern[str]]) -> dict[tuple[str, int], Reading | None]:
    """The readings of ``patterns`` that have no plan (see :data:`_READINGS`)."""
    out = {}
    for rx in patterns:
        rx = real(rx)
        if _plan(rx) is _NO_PLAN:
            out[(rx.pattern, rx.flags)] = _reading(rx)
    return out


def remember_readings(found: dict[tuple[str, int], Reading | None]) -> None:
    _READINGS.update(found)


def plans(patterns: Iterable[re.Pattern[str]]) -> dict[tuple[str, int], tuple[tuple[str, ...], bool] | None]:
    """The plans of ``patterns`` that need no parse tree to be used (see :data:`_PLANS`)."""
    out = {}
    for rx in patterns:
        plan = _plan(real(rx))
        if plan is not _NO_PLAN:
            out[(rx.pattern, rx.flags)] = plan
    return out


def remember_plans(found: dict[tuple[str, int], tuple[tuple[str, ...], bool] | None]) -> None:
    _PLANS.update(found)


def _plan(rx: re.Pattern[str]) -> tuple[tuple[str, ...], bool] | None:
    if _read(rx) is None:
        return None
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        anchors = _anchors(list(parsed.data))
        fold = bool(parsed.state.flags & re.IGNORECASE)
    except Exception:
        return _NO_PLAN
    if len(anchors) != 1 or anchors[0][0] != 0:
        return _NO_PLAN
    literals = anchors[0][1]
    if fold:
        if not all(lit.isascii() for lit in literals):
            return _NO_PLAN
        literals = tuple(dict.fromkeys(lit.lower() for lit in literals))
    return literals, fold


def anchor_test(rx: re.Pattern[str]) -> Callable[[str], bool] | None:
    """A test that is False only where ``rx.search`` finds nothing; None when the pattern has no item
    whose matches start with literals of 3 characters or more.  Two items may anchor it: the one with
    the longest literals (the fewest places to try) and the first one (the longest rest of the pattern
    to match there); the test asks both."""
    rx = real(rx)
    plan = _PLANS.get((rx.pattern, rx.flags), _NO_PLAN)
    if plan is not _NO_PLAN:  # one anchor, the first item's: a test that is the search itself
        return None if plan is None else _test(plan[0], plan[1], rx)
    return _read(rx)


def kept_literals(rx: re.Pattern[str]) -> Callable[[str], bool] | None:
    """From the plan kept with the rule base (no parse): a test that is False only where a text holds none of
    the literals one of which starts every match, so that no part of it (a line) holds a match either; None
    where no plan with literals is kept for the pattern."""
    plan = _PLANS.get((rx.pattern, rx.flags))
    if plan is None or plan is _NO_PLAN:
        return None
    literals, fold = plan

    def holds(text: str) -> bool:
        if fold:
            if not text.isascii():  # case folding beyond ASCII: not decided here
                return True
            text = lowered(text)
        for lit in literals:  # noqa: SIM110 (a loop, not any() over a generator: this runs for each citation)
            if lit in text:
                return True
        return False

    return holds


def anchor_find(rx: re.Pattern[str]) -> Callable[[str], re.Match[str] | None] | None:
    """``rx.search`` itself, from the pattern's plan where there is one (its one anchor starts every match):
    the leftmost match is the match at the first place one of its literals stands where the pattern
    matches, so the text is searched only there; None for a pattern without such a plan."""
    plan = _PLANS.get((rx.pattern, rx.flags))
    if plan is None:
        return None
    return _find(plan[0], plan[1], rx) if plan is not _NO_PLAN else None


#: start plans by (text, flags): the literals of 2 characters or more one of which starts every match, and whether
#: the case folds; None for a pattern without them (see :func:`start_find`)
_STARTS: dict[tuple[str, int], tuple[tuple[str, ...], bool] | None] = {}
_MIN_START = 2


def start_find(rx: re.Pattern[str]) -> Callable[[str], re.Match[str] | None] | None:
    """``rx.search`` itself, tried only where one of the literals that start every match stands, for a
    pattern whose literals are too short to be an anchor (``(?i)\\b(?:kv|head|...)\\w*...``: ``kv`` is found
    too often for a test to save a search).  For a caller that searches anyway (a test let the text
    through): ``str.find`` of each literal and a match at its places still cost much less than a search
    that tries the leading alternation at every position.  None for a pattern without such literals."""
    rx = real(rx)
    key = (rx.pattern, rx.flags)
    plan = _STARTS.get(key, _NO_PLAN)
    if plan is _NO_PLAN:
        plan = _STARTS[key] = _start_plan(rx)
    return None if plan is None else _find(plan[0], plan[1], rx)


class StartSearch:
    """``rx.search`` as :func:`start_find` makes it (or the pattern's own search, for a pattern without a
    start plan), made the first time it is called: a module-level pattern of a collector searched this way
    costs no parse at import.

    >>> find = StartSearch(re.compile(r"(?i)\\bdevice\\s*=\\s*([1-9])"))
    >>> find("x = f(DEVICE=3)").group(1), find("device=0") is None
    ('3', True)
    """

    __slots__ = ("_search", "rx")

    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx = rx
        self._search: Callable[[str], re.Match[str] | None] | None = None

    def __call__(self, text: str) -> re.Match[str] | None:
        search = self._search
        if search is None:
            search = self._search = start_find(self.rx) or self.rx.search
        return search(text)


def _start_plan(rx: re.Pattern[str]) -> tuple[tuple[str, ...], bool] | None:
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        literals = _leading(list(parsed.data))
    except Exception:  # a construct this reading does not know: the regex searches
        return None
    if not literals or min(map(len, literals)) < _MIN_START:
        return None
    fold = bool(parsed.state.flags & re.IGNORECASE)
    if fold:
        if not all(lit.isascii() for lit in literals):
            return None
        literals = tuple(dict.fromkeys(lit.lower() for lit in literals))
    return literals, fold


def _find(literals: tuple[str, ...], fold: bool, rx: re.Pattern[str]) -> Callable[[str], re.Match[str] | None]:
    def find(text: str) -> re.Match[str] | None:
        if fold:
            if not text.isascii():  # case folding beyond ASCII: the pattern, searched
                return rx.search(text)
            hay = lowered(text)
        else:
            hay = text
        match = rx.match
        best: re.Match[str] | None = None
        for lit in literals:
            i = hay.find(lit)
            while i >= 0 and (best is None or i < best.start()):
                m = match(text, i)
                if m is not None:
                    best = m  # this literal's first place to match: a later one starts later
                    break
                i = hay.find(lit, i + 1)
        return best

    return find


def _read(rx: re.Pattern[str]) -> Callable[[str], bool] | None:
    """:func:`anchor_test`, from the pattern's reading (kept, or read from its parse tree)."""
    reading = _READINGS.get((rx.pattern, rx.flags), _UNREAD)
    if reading is _UNREAD:
        reading = _reading(rx)
    return None if reading is None else _built(reading, rx)


def _reading(rx: re.Pattern[str]) -> Reading | None:
    """The test of ``rx`` as its parse tree gives it: a sequence's, or one per branch of an alternation."""
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        items: list[tuple[Any, Any]] = list(parsed.data)
        tests = _sequence_reading(items, parsed.state, rx.flags)
        if tests:
            return ("seq", tests)
        if len(items) != 1 or items[0][0] is not _C.BRANCH or _refers(items):
            return None
        branches = []
        for branch in items[0][1][1]:
            sub = list(branch)
            tests = _sequence_reading(sub, parsed.state, rx.flags)
            if not tests:
                return None
            branches.append((tests, sub_code(sre_parse.SubPattern(parsed.state, sub), rx.flags)))
        return ("branches", tuple(branches))
    except Exception:  # a construct this reading does not know: no test, the regex decides
        return None


def _folded_anchors(items: list[tuple[Any, Any]], fold: bool) -> Iterator[tuple[int, tuple[str, ...]]]:
    """The anchors of ``items`` (:func:`_anchors`), their literals lowered where the pattern folds case; an
    anchor whose literals fold beyond ASCII is left out (str.lower() is not the regex's matching there)."""
    for index, literals in _anchors(items):
        if fold:
            if not all(lit.isascii() for lit in literals):
                continue
            literals = tuple(dict.fromkeys(lit.lower() for lit in literals))
        yield index, literals


def _sequence_reading(items: list[tuple[Any, Any]], state: Any, flags: int) -> _Tests:
    """The tests of the sequence ``items`` (see :func:`_sequence`), none when no item anchors it."""
    fold = bool(state.flags & re.IGNORECASE)
    tests = []
    for index, literals in _folded_anchors(items, fold):
        # from the first item, the rest is the sequence itself
        rest = None if index == 0 else sub_code(sre_parse.SubPattern(state, items[index:]), flags)
        tests.append((literals, fold, rest))
    return tuple(tests)


def _built(reading: Reading, rx: re.Pattern[str]) -> Callable[[str], bool]:
    kind, body = reading
    if kind == "seq":
        return _joined(body, rx)
    tests = [_joined(seq, from_sub_code(code)) for seq, code in body]

    return _any_of(tests)


def _any_of(tests: list[Callable[[str], bool]]) -> Callable[[str], bool]:
    """Whether one of ``tests`` holds for a text (the branches of an alternation)."""

    def one_of(text: str) -> bool:
        for test in tests:  # noqa: SIM110 (a loop, not any() over a generator: this runs for every log)
            if test(text):
                return True
        return False

    return one_of


def _joined(tests: _Tests, whole: re.Pattern[str]) -> Callable[[str], bool]:
    """Each test of a sequence (compiled: ``whole``) passes: the rarest anchor's, then the first item's."""
    built = [_test(literals, fold, whole if rest is None else from_sub_code(rest)) for literals, fold, rest in tests]
    if len(built) == 1:
        return built[0]
    rare, long_rest = built
    return lambda text: rare(text) and long_rest(text)


def anchor_search(rx: re.Pattern[str]) -> Callable[[str], bool] | None:
    """``rx.search(text) is not None``, from the anchor tests where they decide: a test whose rest is the
    whole pattern (or branch) tried at every place its literals stand is the search itself, so a text it
    lets through is not searched again; None when the pattern has no test."""
    rx = real(rx)
    plan = _PLANS.get((rx.pattern, rx.flags), _NO_PLAN)
    if plan is not _NO_PLAN:
        return None if plan is None else _test(plan[0], plan[1], rx)
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        items = list(parsed.data)
        search = _sequence_search(items, parsed.state, rx, rx.flags)
        return search or _branches_test(items, parsed.state, rx.flags, search=True)
    except Exception:  # a construct this reading does not know: the regex decides
        return None


def hit_test(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """``rx.search(text) is not None``: :func:`anchor_search` where the pattern has anchors (a text that holds none
    of the literals every match starts with is not searched), else the search itself."""
    found = anchor_search(rx)
    if found is not None:
        return found
    search = rx.search
    return lambda text: search(text) is not None


def _sequence(
    items: list[tuple[Any, Any]], state: Any, whole: re.Pattern[str], flags: int
) -> tuple[Callable[[str], bool] | None, bool]:
    """The test of the sequence ``items`` (compiled: ``whole``), or None when no item anchors it; and
    whether it is exact (its one anchor starts every match: it tries ``whole`` itself at each place)."""
    fold = bool(state.flags & re.IGNORECASE)
    tests = []
    for index, literals in _folded_anchors(items, fold):
        # from the first item, the rest is the sequence itself
        rest = whole if index == 0 else sre_compile.compile(sre_parse.SubPattern(state, items[index:]), flags)
        tests.append((index, _test(literals, fold, rest)))
    if not tests:
        return None, False
    if len(tests) == 1:
        return tests[0][1], tests[0][0] == 0
    (_, rare), (_, long_rest) = tests
    return (lambda text: rare(text) and long_rest(text)), False


def _sequence_test(
    items: list[tuple[Any, Any]], state: Any, whole: re.Pattern[str], flags: int
) -> Callable[[str], bool] | None:
    return _sequence(items, state, whole, flags)[0]


def _sequence_search(
    items: list[tuple[Any, Any]], state: Any, whole: re.Pattern[str], flags: int
) -> Callable[[str], bool] | None:
    """Whether ``whole`` (the sequence ``items``) is found: its test where that is exact, else its test
    and then the search."""
    test, exact = _sequence(items, state, whole, flags)
    if test is None or exact:
        return test
    search = whole.search
    return lambda text: test(text) and search(text) is not None


def _branches_test(
    items: list[tuple[Any, Any]], state: Any, flags: int, *, search: bool = False
) -> Callable[[str], bool] | None:
    """For a pattern that is one alternation (``A|B``) whose branches each have a test: whether one of
    them passes (a match of the pattern is a match of one of its branches); None otherwise.  ``search``:
    each branch's :func:`_sequence_search`, so the answer is whether the pattern is found."""
    if len(items) != 1 or items[0][0] is not _C.BRANCH or _refers(items):
        return None
    tests = []
    build = _sequence_search if search else _sequence_test
    for branch in items[0][1][1]:
        sub = list(branch)
        test = build(sub, state, sre_compile.compile(sre_parse.SubPattern(state, sub), flags), flags)
        if test is None:
            return None
        tests.append(test)

    return _any_of(tests)


def _test(literals: tuple[str, ...], fold: bool, rest: re.Pattern[str]) -> Callable[[str], bool]:
    match = rest.match

    def may_match(text: str) -> bool:
        if fold:
            if not text.isascii():  # case folding beyond ASCII: the rest of the pattern, searched
                return rest.search(text) is not None
            hay = lowered(text)
        else:
            hay = text
        for lit in literals:
            i = hay.find(lit)
            while i >= 0:
                if match(text, i) is not None:
                    return True
                i = hay.find(lit, i + 1)
        return False

    return may_match


def _anchors(items: list[tuple[Any, Any]]) -> list[tuple[int, tuple[str, ...]]]:
    """(index of an item, the literals one of which starts each of its matches): the item with the
    longest shortest literal (the first of equals), then the first item with literals of 3 characters
    when that is another; none when no item has them."""
    found: list[tuple[int, tuple[str, ...]]] = []
    # whether items[k:] hold a back reference, for every k (read from the end: one pass, not one per k)
    refers = [False] * (len(items) + 1)
    if _refers(items):  # (most patterns hold none)
        for k in range(len(items) - 1, -1, -1):
            refers[k] = refers[k + 1] or _refers(items[k : k + 1])
    for k, (op, _arg) in enumerate(items):
        if op is _C.LITERAL and k > 0 and items[k - 1][0] is _C.LITERAL:
            continue  # inside a run: its start is the better anchor
        if refers[k]:
            continue  # (a back reference to a group before the item cannot be matched without it)
        lits = _leading(items[k:])
        if not lits or min(map(len, lits)) < _MIN_LITERAL:
            continue
        found.append((k, lits))
    if not found:
        return []
    best = max(found, key=lambda f: (min(map(len, f[1])), -f[0]))
    return [best] if best is found[0] else [best, found[0]]


def _leading(items: list[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """Literals one of which every match of the sequence ``items`` starts with (read from its first item,
    a run of literal items, and what follows an optional one); None when there are none."""
    while items and items[0][0] in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
        items = items[1:]  # zero-width (a word boundary, ^, a lookaround): the next item starts the match
    if not items:
        return None
    op, arg = items[0]
    if op is _C.LITERAL:
        run = []
        for op2, arg2 in items:
            if op2 is not _C.LITERAL:
                break
            run.append(chr(arg2))
        return ("".join(run),)
    if op is _C.SUBPATTERN:
        _group, add_flags, del_flags, sub = arg
        if add_flags or del_flags:
            return None  # its own case rules
        return _leading(list(sub))
    if op is _C.BRANCH:
        out: list[str] = []
        for branch in arg[1]:
            lits = _leading(list(branch))
            if not lits:
                return None
            out += lits
        return tuple(out)
    if op in _REPEATS:
        low, high, sub = arg
        if high == 0:
            return _leading(items[1:])  # matches nothing
        first = _leading(list(sub))
        if low >= 1 or not first:
            return first
        after = _leading(items[1:])  # repeated no times: what follows starts the match
        return (*first, *after) if after else None
    return None


def _refers(items: Any) -> bool:
    """Whether ``items`` hold a back reference (``\\1``, ``(?(1)...)``) anywhere."""
    for op, arg in items:
        if op in (_C.GROUPREF, _C.GROUPREF_EXISTS):
            return True
        if op is _C.SUBPATTERN and _refers(arg[3]):
            return True
        if op is _C.BRANCH and any(_refers(b) for b in arg[1]):
            return True
        if op in _REPEATS and _refers(arg[2]):
            return True
        if op in (_C.ASSERT, _C.ASSERT_NOT) and _refers(arg[1]):
            return True
        if op is getattr(_C, "ATOMIC_GROUP", None) and _refers(arg):
            return True
    return False
