"""`too many resources requested for launch` alone: kdiag abstains, with the owners it fits and the check that
decides between them (registers per thread x threads per block against 65,536 and the GPU's registers per block).

The logs are labelled development cases (corpus id given). The same bare status is labelled both ways there: a
launch tuned for another GPU (runtime-assumption) and a kernel whose launch fits no GPU (kernel-logic), so the
text cannot decide.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log

# runtime-assumption: a launch tuned for another GPU
SVOX2 = corpus_log("public/real-dev.yaml", "svox2-launch-bounds-2080ti")  # sxyu/svox2#6
KILONERF = corpus_log("holdout10", "kilonerf-network-eval-too-many-resources-rtx")  # creiser/kilonerf#1
# kernel-logic: a launch over every GPU's register file
FINUFFT = corpus_log("holdout", "finufft-1024-threads-over-64k-registers")  # flatironinstitute/finufft#386
TRACCC = corpus_log("holdout5", "traccc-spacepoint-formation-register-overload")  # acts-project/traccc#730
# environment: a -G debug build
LLMC_DEBUG = corpus_log("holdout5", "llmc-debug-build-too-many-resources")  # karpathy/llm.c#261


@pytest.mark.parametrize("text", [SVOX2, KILONERF, FINUFFT, TRACCC, LLMC_DEBUG])
def test_the_status_alone_abstains_with_the_owners_it_fits(text: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None and d.rule == "cuda-launch-out-of-resources"
    owners = {f.category for f in d.findings}
    assert {"runtime-assumption", "kernel-logic"} <= owners


def test_the_abstention_names_the_check_that_decides() -> None:
    report = classify_text(SVOX2)
    assert report.diagnosis is not None
    check = report.diagnosis.findings[0].caveats or ""
    assert "65,536" in check and "32,768" in check and "registers per thread" in check


def test_a_library_launch_still_goes_to_the_library_rule() -> None:
    # pytorch/pytorch#24953: THCUNN's own upsampling kernel on a Jetson
    text = corpus_log("holdout6", "torch-jetson-upsample-bilinear-too-many-resources")
    report = classify_text(text)
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.rule == "cuda-launch-out-of-resources-in-library"
