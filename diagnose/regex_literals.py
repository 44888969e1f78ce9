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
from diagnose.regex_anchor import anchor_search, anchor_test, lowered
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
            search = rx.search
            decide.append(anchor_search(rx) or (lambda text: search(text) is not None))
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


def literal_options(rx: re.Pattern[str], *, folded: bool = False) -> tuple[tuple[str, ...], bool] | None:
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
