"""PyTorch's pooling ops refuse a size or element count past their kernels' 32-bit index: safe_downcast's
"integer out of range" (aten/src/ATen/native/Pool.h up to PyTorch 2.12) is the input's size, runtime-assumption;
the generic c10 conversion message that replaced it in 2.13 still abstains."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import classify_text, corpus_log, decided

RULE = "torch-pooling-index-downcast-out-of-range"


@pytest.mark.parametrize(
    "text",
    [
        corpus_log("holdout17", "h17a-torch-avgpool-bwd-int-out-of-range"),
        # pytorch/pytorch#167253, the title
        "max pooling on CUDA: RuntimeError: integer out of range\n",
    ],
)
def test_pooling_downcast_out_of_range_is_the_inputs_size(text: str) -> None:
    assert decided(text) == ("runtime-assumption", "int32-index-overflow", RULE)


@pytest.mark.parametrize(
    "text",
    [
        # PostgreSQL's error of the same words is not PyTorch's check
        "ERROR:  integer out of range\n",
        "def test_integer_out_of_range():\n",
    ],
)
def test_other_integer_out_of_range_lines_are_not_this_family(text: str) -> None:
    report = classify_text(text)
    d = report.diagnosis
    assert d is None or all(f.rule != RULE for f in d.findings)


def test_the_213_wording_still_abstains() -> None:
    # printed by torch 2.13.0+cpu here: torch.nn.functional.avg_pool2d(torch.zeros(1, 1, 4, 4), kernel_size=2**31)
    report = classify_text("RuntimeError: value cannot be converted to type int without overflow\n")
    assert report.status == "unknown"
