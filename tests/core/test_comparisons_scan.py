"""The printed-comparison detectors (diagnose/comparisons.py) find their lines in one pass over a log:
the same lines as a search of every line, on real logs and on texts made to hit the edges (case,
non-ASCII text, a word a letter precedes, lines over the length limit)."""

from __future__ import annotations

import bisect
import math
import re

import pytest
from corpus_logs import public_and_fixture_logs

from diagnose import comparisons as C

EDGES = [
    "",
    "\n\n",
    "max abs diff: 0.51 (TOL 1e-3)\nmax abs diff: 0.0001 (tol 1e-3)\nsteps: 3",
    "err = 2.5 Threshold = 1.0\nÉRR = 3 threshold = 1",
    "delta 1e-2 allowed 1e-3\n" + "x" * 2100 + " diff 9 tol 1",
    "accuracy: 0.0 (baseline accuracy: 0.85)",
    "accuracy: 0.0\nREF_acc = 0.91",
    "accuracy: 0\npreference: 0.9\nxcpu: 1",
    "acc = 0.0 µs\nGolden acc = 0.7",
    "CPU_ref: 1.125032 vs GPU: 3.562500\ncuda: 12.1\ntorch: 2.1",
    "taps=[3, 2]: scipy=[1, 1, 1, 1]\n   cupy=[1, 1, 1, 0]",
    "ſcipy=[1] cupy=[2]\nKernel: 3.0 Expected: 4.0",
]


def _logs() -> list[str]:
    return public_and_fixture_logs(EDGES)


def _side_lines_per_word(text: str) -> list[int]:
    lower = text.lower()
    starts: set[int] = set()
    for word in C._REF_WORDS | C._DEV_WORDS:
        i = lower.find(word)
        while i >= 0:
            starts.add(lower.rfind("\n", 0, i) + 1)
            nl = lower.find("\n", i)
            if nl < 0:
                break
            i = lower.find(word, nl)
    ends = [m.start() for m in re.finditer("\n", text)]
    return sorted(bisect.bisect_left(ends, start) for start in starts)


def _over_tolerance_per_line(text: str, limit: int) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for n, line in enumerate(text.split("\n"), 1):
        if len(line) > 2000 or not C._BOUND_WORD.search(line):
            continue
        for m in C._OVER_TOLERANCE.finditer(line):
            if math.isnan(float(m["value"])) or abs(float(m["value"])) > abs(float(m["limit"])):
                out.append((n, line.strip()))
                break
        if len(out) >= limit:
            break
    return out


def _zero_lines_per_line(text: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if "0" in line and C._ZERO_VALUE.search(line)]


@pytest.mark.parametrize("limit", [1, 3])
def test_one_pass_finds_the_lines_of_a_search_per_line(limit: int) -> None:
    found = {"side": 0, "tolerance": 0, "zero": 0, "reference": 0}
    for text in _logs():
        side = C._side_lines(text)
        assert side == _side_lines_per_word(text)
        tolerance = C.over_tolerance_lines(text, limit)
        assert tolerance == _over_tolerance_per_line(text, limit)
        zero = list(C._lines_matching(text, C._ZERO_VALUE))
        assert zero == _zero_lines_per_line(text)
        reference = C._names_a_reference(text)
        assert reference == (C._REF_ANY.search(text) is not None)
        for key, got in (("side", side), ("tolerance", tolerance), ("zero", zero), ("reference", reference)):
            found[key] += bool(got)
    assert all(found.values()), found


def test_zero_metric_beside_its_reference() -> None:
    assert C.zero_metric_lines("accuracy: 0.0 (baseline accuracy: 0.85)") == [
        (1, "accuracy: 0.0 (baseline accuracy: 0.85)")
    ]
    assert C.zero_metric_lines("accuracy: 0.0\npreference: 0.9") == []  # "ref" inside a word is no reference


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # openmm/openmm#1794 (corpus/holdout70): energies printed per platform; numbers no version is
        ("Both forces:\n    CPU: -3156.85350967\n    CUDA: -213.760077752", True),
        ("    CPU: 1.0e3\n    CUDA: 2.5e3", True),
        # the same platforms agreeing, and version lists beside framework names
        ("Just one force:\n    CPU: -1.70043045353\n    CUDA: -1.70042987235", False),
        ("torch: 2.1\ncuda: 12.1", False),
        ("numpy: 1.26\ncupy: 13.3", False),
    ],
)
def test_framework_labels_with_computed_values_are_a_comparison(text: str, found: bool) -> None:
    assert bool(C.comparison_lines(text)) is found
