"""A printed value its reporter marks as wrong (a comment ending in the verdict, a result called garbage) is a
failure line, so such a log is answered `unknown` with the wrong-result check, never `no-failure`; look-alikes
(garbage collection, a comment that is not a verdict) stay healthy."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.failure_lines import is_failure_line
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from diagnose.unmatched import hint_for

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
MATCHER = Matcher(default_rules())


def case(path: str, case_id: str) -> str:
    return next(str(c["log"]) for c in yaml.safe_load((CORPUS / path).read_text()) if c["id"] == case_id)


@pytest.mark.parametrize(
    "line",
    [
        # corpus/holdout13 h13a-triton-autotune-atomic-add-first-call-wrong (triton-lang/triton#4217)
        "print(vector_sum(x))  # tensor([79561.5703], device='cuda:6'), incorrect",
        # corpus/holdout13 h13a-torch-prod-fp16-in-fp32-out-garbage (pytorch/pytorch#32750)
        "FP16 input, FP32 output produces garbage data (zero-ish)",
        # other wordings of the same verdicts
        ">>> out[0].item()  # 0.0 (wrong)",
        "y = kernel(x)  # array([nan, 1.0]); WRONG",
        "on the GPU the op returns garbage for n > 1024",
        "the last block gives garbage values",
    ],
)
def test_reporter_verdicts_are_failure_lines(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "gc: garbage collection took 12 ms, freed 3 objects",
        "torch.cuda.memory: garbage_collection_threshold=0.6",
        "print(vector_sum(x))  # tensor([62.5476], device='cuda:6'), correct",
        "x = f(y)  # the result is never wrong by more than one ulp here, see the note",
        "# not wrong",
    ],
)
def test_look_alikes_stay_healthy(line: str) -> None:
    assert not is_failure_line(line)


@pytest.mark.parametrize(
    "case_id", ["h13a-triton-autotune-atomic-add-first-call-wrong", "h13a-torch-prod-fp16-in-fp32-out-garbage"]
)
def test_a_marked_wrong_value_is_an_abstention_with_the_wrong_result_check(case_id: str) -> None:
    text = case("holdout13/issues.yaml", case_id)
    report = classify_record(InputRecord(id=case_id, text=text), MATCHER)
    assert report.status != "no-failure"
    assert report.category == "unknown"
    hint = hint_for(collect(text))
    assert hint is not None and hint.kind == "wrong-result"
    assert hint.candidates[0].failure_mode == "wrong-result"
