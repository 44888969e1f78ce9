"""log_words.conda_env finds the conda folder first and searches from the path run that holds it: the same answer
as the whole pattern searched from the log's start."""

from __future__ import annotations

import itertools

from diagnose.collectors import log_words as L

PARTS = ("C:", "/", "\\", "miniconda3", "Anaconda", "opt/conda", "envs", "my-env", "x", " ", "\n", ":", "ſ", "(")


def _whole(text: str) -> str | None:
    head = text[: L.SCAN]
    if not L._holds(L.lowered(head), L._CONDA_WORDS):
        return None
    m = L._CONDA_ENV.search(head)
    return m[0] if m else None


def test_conda_env_answers_as_the_whole_pattern() -> None:
    texts = ["".join(p) for n in range(1, 5) for p in itertools.product(PARTS, repeat=n)]
    found = 0
    for text in texts:
        assert L.conda_env(text) == _whole(text), repr(text)
        found += _whole(text) is not None
    assert found > 1000
