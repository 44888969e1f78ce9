"""Which of the collectors' first words a log holds, found in one pass over it.

A collector answers ``None`` at once for a log that holds none of the words every report of its kind
has (its hints: ``Segmentation fault``, ``out of memory``, ``ptxas`` ...).  Asked word by word, a log is
scanned again for every word of every collector; :func:`gate` files a collector's words in one automaton
(pyahocorasick) of all of them, and :func:`words_in` finds, in one pass over the log, every one it holds
(kept for the last log, which every collector reads in turn).  A collector's gate answers exactly what
``any(word in text for word in words)`` answers.

>>> holds = gate(("Segmentation fault", "core dumped"))
>>> holds("Segmentation fault (core dumped)"), holds("1 passed in 0.77s")
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

#: every gate's words; the automaton is built again the first time a log is read after a gate is added
_WORDS: set[str] = set()
_AUTOMATON: list[Any] = []
_LAST: tuple[str, frozenset[str]] = ("", frozenset())


def gate(words: Iterable[str]) -> Callable[[str], bool]:
    """A test of whether a text holds one of ``words`` (each a non-empty string), from :func:`words_in`."""
    own = frozenset(words)
    if not own or "" in own:
        raise ValueError("a gate's words are non-empty strings, and it has one at least")
    if not own <= _WORDS:
        _WORDS.update(own)
        _AUTOMATON.clear()
        _forget()

    def holds(text: str) -> bool:
        return not own.isdisjoint(words_in(text))

    return holds


def _forget() -> None:
    global _LAST
    _LAST = ("", frozenset())


def automaton_of(words: Iterable[str]) -> Any:
    """An Aho-Corasick automaton (pyahocorasick) that reports each of ``words`` as itself wherever it occurs."""
    import ahocorasick

    auto = ahocorasick.Automaton()
    for word in words:
        auto.add_word(word, word)
    auto.make_automaton()
    return auto


def _automaton() -> Any:
    if not _AUTOMATON:
        _AUTOMATON.append(automaton_of(_WORDS))
    return _AUTOMATON[0]


def words_in(text: str) -> frozenset[str]:
    """The gates' words ``text`` holds (remembered for the last text asked about)."""
    global _LAST
    last = _LAST
    if last[0] is text:
        return last[1]
    found = frozenset(word for _, word in _automaton().iter(text)) if text else frozenset()
    _LAST = (text, found)
    return found
