"""The explanation review set: the fix kdiag gives names the fix the case's thread found.

corpus/review/fixes.yaml lists real corpus cases (never the held-out holdout4/, holdout14/, holdout15/) with the fix class
their resolution names; a case kdiag answers passes when the fix text matches the class' keywords.
The floor is the committed figure (`python -m diagnose.kb.review` prints it): raise it with the rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.kb import review as R

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
#: the labelled sets a review case may come from (development sets), and the held-out ones it never does
DEVELOPMENT = (
    "public/real-dev.yaml",
    "holdout/",
    *(
        f"holdout{n}/"
        for n in (
            2,
            3,
            5,
            6,
            7,
            8,
            9,
            10,
            11,
            12,
            13,
            16,
            17,
            18,
            19,
            20,
            21,
            22,
            23,
            24,
            25,
            26,
            27,
            28,
            29,
            30,
            31,
            32,
            33,
            34,
        )
    ),
)
HELD_OUT = ("holdout4/", "holdout14/", "holdout15/")
# of 104 answered, with the message catalogue and calibrated confidences (abstain below 0.5). A bare "too many
# resources requested for launch" and ATen's generic "index out of bounds" assert abstain: 8 cases fewer answered
# (and passed) than the 112 before; the three misses are the same.
FLOOR_PASSED = 101


@pytest.fixture(scope="module")
def results() -> list[R.Reviewed]:
    return R.review()


def test_the_review_set_is_real_corpus_cases() -> None:
    classes, cases = R.load()
    assert len(cases) >= 40
    seen = set()
    files: dict[str, dict] = {}  # each corpus file parsed once (the cases share a handful of files)
    for c in cases:
        file, _, cid = c["case"].partition(":")
        assert not file.startswith(HELD_OUT), c["case"]
        assert file.startswith(DEVELOPMENT), c["case"]
        assert c["case"] not in seen
        seen.add(c["case"])
        if file not in files:
            files[file] = {x["id"]: x for x in yaml.safe_load((CORPUS / file).read_text(encoding="utf-8"))}
        labelled = files[file]
        assert labelled[cid]["source"] == c["source"]
        # the class was written down from the thread's resolution, quoted with the case
        assert " ".join(labelled[cid]["resolution"].split()) == c["resolution"]
        assert c["expected_fix_class"] in classes


def test_the_fix_names_the_threads_fix(results: list[R.Reviewed]) -> None:
    answered = [r for r in results if r.answered]
    passed = [r for r in answered if r.passed]
    assert len(answered) >= 40
    missed = [(r.case, r.expected, r.rule) for r in answered if not r.passed]
    assert len(passed) >= FLOOR_PASSED, missed


def test_keywords_decide(tmp_path: Path) -> None:
    classes, _ = R.load()
    assert classes["64-bit indexing"].search("compute offsets in 64 bits (`int64_t`)")
    assert not classes["64-bit indexing"].search("guard the access with `if (i < n)`")
    bad = tmp_path / "fixes.yaml"
    bad.write_text("fix_classes: {a: {keywords: '('}}\ncases: []\n")
    with pytest.raises(R.ReviewError):
        R.load(bad)
