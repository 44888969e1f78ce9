"""Cheap tests before a regex: the literals every match of a pattern contains.

:func:`literal_options` reads a pattern's parse tree for strings of which every match holds at least
one; :func:`regex_test` refuses a string that holds none of them without running the regex — a
substring test is many times cheaper than a search with a leading alternation or ``(?i)``.  The
answer is always the regex's own (the rule pre-checks of :mod:`diagnose.prefilter` rely on it).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

from diagnose.lazy_regex import real
from diagnose.regex_anchor import anchor_test, hit_test, lowered, start_find
from diagnose.regex_code import from_code

with warnings.catch_warnings():  # the stdlib's own regex parser (deprecated names of re._parser, re._constants)
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants as _C
    import sre_parse

_REPEATS = (_C.MAX_REPEAT, _C.MIN_REPEAT) + ((_C.POSSESSIVE_REPEAT,) if hasattr(_C, "POSSESSIVE_REPEAT") else ())


_COMPILED: dict[str, re.Pattern[str]] = {}


def compiled(pattern: str) -> re.Pattern[str]:
    """``re.compile(pattern)``, kept by the pattern's text: the rule base and the message catalogue hold
    more patterns than ``re``'s own cache keeps, and a finding's citation reads them again."""
    rx = _COMPILED.get(pattern)
    if rx is None:
        # from the code kept with the rule base (diagnose.regex_code) where there is one
        rx = _COMPILED[pattern] = from_code(pattern) or re.compile(pattern)
    elif not isinstance(rx, re.Pattern):  # a catalogue pattern read back from the rule cache, not yet compiled
        rx = _COMPILED[pattern] = real(rx)
    return rx


def regex_test(pattern: str, *, anchored: bool = False) -> Callable[[str], bool]:
    """Whether ``pattern`` is found in a string (``re.search``; ``re.match`` when ``anchored``); a string
    that holds none of the literals every match contains is refused without running the regex."""
    rx = compiled(pattern)
    if anchored:
        find = _anchored_first(rx, rx.match)
        found: Callable[[str], bool] = lambda s: find(s) is not None  # noqa: E731
    else:
        found = _searched(rx)
    options = literal_options(rx)
    if options is None:
        return found
    literals, fold = options
    holds = _holds_one_of(literals)
    if not fold:
        return lambda s: holds(s) and found(s)

    def folded(s: str) -> bool:
        # ASCII text: IGNORECASE matching is ASCII case folding, which lower() does
        if s.isascii() and not holds(_lowered(s)):
            return False
        return found(s)

    return folded


def _searched(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """``rx.search(s) is not None``, answered by the pattern's anchor tests where they decide
    (:func:`diagnose.regex_anchor.anchor_search`); made on the first call, so a rule base loads without
    reading every pattern twice."""
    decide: list[Callable[[str], bool]] = []

    def found(s: str) -> bool:
        if not decide:
            decide.append(hit_test(rx))
        return decide[0](s)

    return found


def _anchored_first(rx: re.Pattern[str], find: Callable[[str], Any]) -> Callable[[str], Any]:
    """``find``, after the pattern's anchor test (:mod:`diagnose.regex_anchor`) where it has one: a string
    the test refuses has no match (so no ``re.match`` either).  The test is made on the first call, so a
    rule base loads without reading every pattern twice."""
    test: list[Callable[[str], bool] | None] = []

    def found(s: str) -> Any:
        if not test:
            test.append(anchor_test(rx))
        may = test[0]
        if may is not None and not may(s):
            return None
        return find(s)

    return found


def may_match(rx: re.Pattern[str]) -> Callable[[str], bool]:
    """A cheap test that is False only where ``rx`` cannot match the string (none of the literals every
    match contains is in it); always True when the pattern has no such literals.  For a caller that
    runs ``finditer`` or reads groups: the regex still decides every string this lets through."""
    options = literal_options(rx)
    if options is None:
        return lambda s: True
    literals, fold = options
    holds = _holds_one_of(literals)
    if not fold:
        return holds
    return lambda s: not s.isascii() or holds(_lowered(s))


def _holds_one_of(literals: tuple[str, ...]) -> Callable[[str], bool]:
    if len(literals) == 1:
        (only,) = literals
        return lambda s: only in s

    def holds(s: str) -> bool:  # a loop, not any() over a generator: this runs for every rule and log
        for lit in literals:  # noqa: SIM110
            if lit in s:
                return True
        return False

    return holds


_lowered = lowered  # s.lower(), remembered for the last string (diagnose.regex_anchor)


# --- the literals every match of a regex contains -------------------------------------------------

_MIN_LITERAL = 3


#: :func:`literal_options`' answers by (text, flags, folded); those not folded are kept with the rule base
#: (diagnose.rule_cache), so that a run does not parse again each pattern its rules' pre-checks test
_OPTIONS: dict[tuple[str, int, bool], tuple[tuple[str, ...], bool] | None] = {}


def kept_options() -> dict[tuple[str, int, bool], tuple[tuple[str, ...], bool] | None]:
    """The answers of :func:`literal_options` so far (not folded: the rules' and the collectors' patterns)."""
    return {k: v for k, v in _OPTIONS.items() if not k[2]}


def remember_options(found: dict[tuple[str, int, bool], tuple[tuple[str, ...], bool] | None]) -> None:
    _OPTIONS.update(found)


def literal_options(rx: re.Pattern[str], *, folded: bool = False) -> tuple[tuple[str, ...], bool] | None:
    """:func:`_literal_options`, read once per pattern (and from the rule base, where it kept it)."""
    key = (rx.pattern, rx.flags, folded)
    if key in _OPTIONS:
        return _OPTIONS[key]
    found = _OPTIONS[key] = _literal_options(rx, folded=folded)
    return found


def _literal_options(rx: re.Pattern[str], *, folded: bool = False) -> tuple[tuple[str, ...], bool] | None:
    """Strings of which every match of ``rx`` contains at least one, and whether they are to be looked
    for case-folded (``re.IGNORECASE``: then they are lowered, and all ASCII); None when there are none
    (or only shorter than 3 characters, not worth a test).

    A run of literal characters is required where it stands in a sequence; an alternation requires
    one of its branches' requirements (each branch must have one); a group or a repeat of at least
    one its content's.  Inline flags on a group (``(?i:...)``) give no literals, unless ``folded``: a
    caller that looks for the literals in lowered text (the message catalogue's anchors) gets every
    literal lowered, those of such a group too, since the group's case rules no longer matter."""
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        found = _required(parsed.data, folded)
    except Exception:  # a construct this walk does not know: no literals, the regex decides
        return None
    if not found or min(map(len, found)) < _MIN_LITERAL:
        return None
    fold = folded or bool(parsed.state.flags & re.IGNORECASE)
    if fold:
        if not all(lit.isascii() for lit in found):
            return None
        found = frozenset(lit.lower() for lit in found)
    # a string that holds a shorter literal it contains is enough: keep the shortest ones
    kept = tuple(sorted(lit for lit in found if not any(o != lit and o in lit for o in found)))
    return kept, fold


def _required(items: Any, folded: bool = False) -> frozenset[str] | None:
    """The literals (any one of them) every match of the sequence ``items`` contains, or None."""
    best: frozenset[str] | None = None

    def consider(options: frozenset[str] | None) -> None:
        nonlocal best
        if options and (best is None or min(map(len, options)) > min(map(len, best))):
            best = options

    run: list[str] = []
    for op, arg in [*list(items), (None, None)]:
        if op is _C.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            consider(frozenset(["".join(run)]))
            run = []
        if op is _C.SUBPATTERN:
            _group, add_flags, del_flags, sub = arg
            if (add_flags or del_flags) and not folded:
                raise ValueError("inline flags on a group")
            consider(_required(sub, folded))
        elif op is _C.BRANCH:
            branches = [_required(b, folded) for b in arg[1]]
            if all(branches):
                consider(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in _REPEATS and arg[0] >= 1:
            consider(_required(arg[2], folded))
    return best


# --- the line a match starts on: patterns that start with a multi-line ``^`` ------------------------

#: line plans by (text, flags): the literals one of which every match's first line holds, and whether the
#: case folds; None for a pattern without one (see :func:`line_find`)
_LINE_PLANS: dict[tuple[str, int], tuple[tuple[str, ...], bool] | None] = {}
_UNPLANNED = ((), False)


def line_find(rx: re.Pattern[str]) -> Callable[[str], re.Match[str] | None] | None:
    """``rx.search`` itself, for a pattern whose every match starts at a line start (``(?m)^...``) on a line
    that holds one of a few literals: the literals a lookahead right after the ``^`` requires on that line
    (``^(?=[^\\n]*?(?:error|failed))...``), or those the pattern's first items require before any of them
    can cross a newline.  Python's regex engine tries such a pattern at every line of a text, each try
    reading the line's lookaheads; this tries it only at the lines where one of the literals stands,
    lowest first, so the first match is the search's.  None for a pattern without such literals."""
    rx = real(rx)
    if not rx.flags & re.MULTILINE or "^" not in rx.pattern:
        return None
    key = (rx.pattern, rx.flags)
    plan = _LINE_PLANS.get(key, _UNPLANNED)
    if plan is _UNPLANNED:
        plan = _LINE_PLANS[key] = _line_plan(rx)
    return None if plan is None else _line_find(plan[0], plan[1], rx)


def searcher(rx: re.Pattern[str]) -> Callable[[str], re.Match[str] | None]:
    """``rx.search``, tried only where a match can start when the pattern says where: at the lines that
    hold its literals (:func:`line_find`), or where one of the literals that start every match stands
    (:func:`diagnose.regex_anchor.start_find`)."""
    return line_find(rx) or start_find(rx) or real(rx).search


def _line_plan(rx: re.Pattern[str]) -> tuple[tuple[str, ...], bool] | None:
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
    except Exception:
        return None
    flags = parsed.state.flags
    items: list[tuple[Any, Any]] = list(parsed.data)
    if not flags & re.MULTILINE or not items or items[0] != (_C.AT, _C.AT_BEGINNING):
        return None
    dotall = bool(flags & re.DOTALL)
    fold = bool(flags & re.IGNORECASE)
    options: list[frozenset[str] | None] = []
    k = 1
    while k < len(items) and items[k][0] in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
        op, arg = items[k]
        # a lookahead read at the line start (everything before it is zero-width) whose match stays on the line
        if op is _C.ASSERT and arg[0] == 1 and _one_line(arg[1], dotall):
            options.append(_required_or_none(arg[1]))
        k += 1
    first = k  # the consumed items that cannot leave the line: their literals stand on it
    while k < len(items) and _one_line([items[k]], dotall):
        k += 1
    options.append(_required_or_none(items[first:k]))
    best: tuple[str, ...] | None = None
    for found in options:
        if not found or min(map(len, found)) < _MIN_LITERAL:
            continue
        if fold:
            if not all(lit.isascii() for lit in found):
                continue
            found = frozenset(lit.lower() for lit in found)
        lits = tuple(sorted(found))
        if best is None or min(map(len, lits)) > min(map(len, best)):
            best = lits
    return None if best is None else (best, fold)


def _required_or_none(items: Any) -> frozenset[str] | None:
    try:
        return _required(items)
    except Exception:  # inline flags on a group, a construct the walk does not know: no literals
        return None


#: character categories that hold a newline (``\s``, ``\D``, ``\W``)
_NEWLINE_CATEGORIES = frozenset({_C.CATEGORY_SPACE, _C.CATEGORY_NOT_DIGIT, _C.CATEGORY_NOT_WORD, _C.CATEGORY_LINEBREAK})
_NO_NEWLINE_CATEGORIES = frozenset(
    {_C.CATEGORY_NOT_SPACE, _C.CATEGORY_DIGIT, _C.CATEGORY_WORD, _C.CATEGORY_NOT_LINEBREAK}
)


def _one_line(items: Any, dotall: bool) -> bool:
    """Whether no match of the sequence ``items`` holds a newline (lookarounds match nothing themselves)."""
    for op, arg in items:
        if op is _C.LITERAL:
            if arg == 10:
                return False
        elif op is _C.NOT_LITERAL:
            if arg != 10:
                return False
        elif op is _C.ANY:
            if dotall:
                return False
        elif op is _C.IN:
            if _set_has_newline(arg):
                return False
        elif op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue
        elif op is _C.SUBPATTERN:
            _group, add_flags, del_flags, sub = arg
            inner = (dotall or bool(add_flags & re.DOTALL)) and not del_flags & re.DOTALL
            if not _one_line(sub, inner):
                return False
        elif op is _C.BRANCH:
            if not all(_one_line(b, dotall) for b in arg[1]):
                return False
        elif op in _REPEATS:
            if arg[1] != 0 and not _one_line(arg[2], dotall):
                return False
        else:  # a back reference, a conditional, anything else: it may
            return False
    return True


def _set_has_newline(members: Any) -> bool:
    negate = bool(members) and members[0][0] is _C.NEGATE
    has = False
    for op, arg in members[1:] if negate else members:
        if op is _C.LITERAL:
            has = has or arg == 10
        elif op is _C.RANGE:
            has = has or arg[0] <= 10 <= arg[1]
        elif op is _C.CATEGORY and arg in _NO_NEWLINE_CATEGORIES:
            continue
        elif op is _C.CATEGORY and arg in _NEWLINE_CATEGORIES:
            has = True
        else:  # a member this walk does not know: it may hold one
            return True
    return has != negate


def _line_find(literals: tuple[str, ...], fold: bool, rx: re.Pattern[str]) -> Callable[[str], re.Match[str] | None]:
    match = rx.match

    def find(text: str) -> re.Match[str] | None:
        if fold:
            if not text.isascii():  # case folding beyond ASCII: the pattern, searched
                return rx.search(text)
            hay = _lowered(text)
        else:
            hay = text
        starts: set[int] = set()
        for lit in literals:
            i = hay.find(lit)
            while i >= 0:
                starts.add(hay.rfind("\n", 0, i) + 1)
                end = hay.find("\n", i)  # the rest of this line: its start is taken
                if end < 0:
                    break
                i = hay.find(lit, end + 1)
        for start in sorted(starts):
            m = match(text, start)  # `^` holds there (a line start), as where the search would try it
            if m is not None:
                return m
        return None

    return find
