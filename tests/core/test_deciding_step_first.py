"""The check an abstaining answer gives leads with the step that decides (an expert's review of holdout19):
for a wrong result, whether it is the same on every run (a race or an uninitialised read when it is not),
before the comparison with a reference; for a bare illegal memory access, the launch that faulted and its
inputs' index values against the sizes they index (or the same call on the CPU), before memcheck. The logs
are the corpus cases named."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import classify_text, corpus_log


def _check(where: str, case_id: str) -> str:
    report = classify_text(corpus_log(where, case_id)).to_dict()
    assert report["status"] == "unknown"
    return str(report["next_check"])


@pytest.mark.parametrize(
    ("where", "case_id"),
    [
        ("holdout19", "h19a-cufhe-ntt-missing-syncthreads"),  # a bare **FAIL** (missing __syncthreads)
        ("holdout19", "h19a-cub-rle-nontrivialruns-smem-race"),  # INCORRECT lines, once in 1300 runs
        ("holdout19", "h19b-taichi-mass-spring-cuda-race"),  # right on CPU, wrong on CUDA (a global race)
        ("holdout5", "cutorch-copy-noncontiguous-wrong"),  # WRONG ANSWER!!! (a layout, deterministic)
    ],
)
def test_a_wrong_result_check_asks_first_whether_it_repeats(where: str, case_id: str) -> None:
    check = _check(where, case_id)
    assert check.startswith("First find out whether the wrong result is the same on every run")
    assert check.index("--tool racecheck") < check.index("through a reference on the CPU")
    assert "hundreds of times" in check and "without an atomic" in check
    assert "contiguous copy" in check  # the deterministic branch keeps its steps


@pytest.mark.parametrize(
    ("where", "case_id"),
    [
        ("holdout19", "h19b-paddlenlp-bbox-out-of-range-ima"),  # Paddle's CUDA error(700): bboxes out of range
        ("holdout19", "h19b-cucim-pba-negative-coord-ima"),  # CUDA_ERROR_ILLEGAL_ADDRESS in an issue title
        ("holdout19", "h19a-apex-overflow-buf-default-device"),  # apex: a buffer on the default device
    ],
)
def test_an_illegal_address_check_leads_with_the_launch_and_its_inputs(where: str, case_id: str) -> None:
    check = _check(where, case_id)
    assert check.startswith("First rerun with CUDA_LAUNCH_BLOCKING=1")
    inputs = check.index("index, id or coordinate values")
    assert inputs < check.index("--tool memcheck") and inputs < check.index("CUDA_VISIBLE_DEVICES=0")
    assert "CPU implementation" in check and "runtime-assumption" in check
