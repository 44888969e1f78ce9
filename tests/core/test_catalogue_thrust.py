"""A CUDA error that surfaced inside a Thrust algorithm ("merge_sort: failed to synchronize: ...", the strings
CCCL's thrust/system/cuda/detail/*.h pass to throw_on_error) abstains, and lists a bug of the Thrust release
beside the program's kernel: the message does not say whose kernel failed."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import classify_text, corpus_log


def _candidates(text: str) -> set[tuple[str, str]]:
    d = classify_text(text).diagnosis
    assert d is not None
    return {(f.category, f.rule or "") for f in d.findings}


@pytest.mark.parametrize(
    "text",
    [
        corpus_log("holdout17", "h17a-gauhuman-merge-sort-ima-cuda114"),
        corpus_log("holdout12", "cudf-range-window-null-bounds-off-by-one"),
    ],
)
def test_an_illegal_address_inside_thrust_abstains_with_the_release_among_the_candidates(text: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    assert ("environment", "thrust-algorithm-cuda-error-as-environment") in _candidates(text)


def test_a_decided_error_inside_thrust_stays_decided() -> None:
    # constructed from CCCL's throw_on_error format (system_error's what(): "<step>: <error name>: <error string>",
    # as the GauHuman log shows it) with a CUDA status that decides by itself (no kernel image for this GPU)
    text = (
        "RuntimeError: merge_sort: failed on 1st step: cudaErrorNoKernelImageForDevice: no kernel image is "
        "available for execution on the device\n"
    )
    report = classify_text(text)
    d = report.diagnosis
    assert report.status == "diagnosed" and d is not None and d.findings[0].category == "environment"
