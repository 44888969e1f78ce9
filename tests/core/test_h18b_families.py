"""Families learned from the misses of the eighteenth set's part b (JAX/XLA, TensorFlow): each decided from what
decides it, or left undecided with the candidates and the check that decides.

Fixture lines are the logs of labelled dev cases (corpus id given) or lines of other public reports of the same
family (the issue named beside them), quoted verbatim.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

from diagnose.comparisons import comparison_lines
from diagnose.report import next_check

# --- the BFC allocator (TensorFlow, JAX/XLA) gives up on one request: bfc_allocator.cc's failing wording -----------

ALPHAFOLD = corpus_log("holdout18", "h18b-alphafold-long-sequence-gpu-oom")
GRAPHCAST_LINE = next(  # the BFC allocator's line alone, without XLA's RESOURCE_EXHAUSTED after it
    line + "\n"
    for line in corpus_log("holdout13", "h13b-graphcast-025-training-needs-86gib-on-v100").splitlines()
    if "bfc_allocator.cc" in line
)


@pytest.mark.parametrize("text", [ALPHAFOLD, GRAPHCAST_LINE])
def test_the_bfc_allocators_failing_line_alone_is_the_problem_size(text: str) -> None:
    assert decided(text) == ("runtime-assumption", "oom-problem-size", "oom-bfc-allocator-request-failed")


def test_the_bfc_allocators_retry_warning_is_not_a_failure() -> None:
    # bfc_allocator.cc's warning for an optional scratch allocation (a TensorFlow 2.x training log): the run goes on
    text = (
        "2020-06-06 12:47:45.908022: W tensorflow/core/common_runtime/bfc_allocator.cc:239] Allocator (GPU_0_bfc) "
        "ran out of memory trying to allocate 3.46GiB with freed_by_count=0. The caller indicates that this is not a "
        "failure, but may mean that there could be performance gains if more memory were available.\n"
    )
    assert verdict(text)[2] != "oom-bfc-allocator-request-failed"


def test_the_bfc_allocators_failing_line_after_epochs_is_left_to_the_leak_check() -> None:
    text = "Epoch: [3] \t Speed: 3099.142 samples/sec \t Time cost=0.323\n" + ALPHAFOLD  # chainer/chainer#5621's line
    assert verdict(text)[2] != "oom-bfc-allocator-request-failed"


# --- TensorFlow's GatherNd bounds check: the index's origin decides, so kdiag abstains ----------------------------

TF_15091 = corpus_log("holdout18", "h18b-tf-gathernd-negative-index-zero-length-seq")  # tensorflow/tensorflow#15091
PIXEL2MESH = (  # nywang16/Pixel2Mesh#22 (TensorFlow 1.x wording)
    "InvalidArgumentError (see above for traceback): flat indices[117, :] = [2, 7] does not index into param "
    "(shape: [7,7,512]).\n"
)
TIES = (  # shahrukhqasim/TIES-2.0#38 (TensorFlow 2.x wording)
    "2020-09-01 10:26:56.662955: W tensorflow/core/framework/op_kernel.cc:1753] OP_REQUIRES failed at "
    "gather_nd_op.cc:47 : Invalid argument: indices[24,899,5] = [24, 899, 900] does not index into param shape "
    "[25,900,900]\n"
)


@pytest.mark.parametrize("text", [TF_15091, PIXEL2MESH, TIES])
def test_a_gather_nd_index_out_of_range_abstains_with_the_index_origin_check(text: str) -> None:
    report = classify_text(text)
    assert report.category == "unknown"
    d = report.diagnosis
    assert d is not None
    assert [f.category for f in d.findings[:2]] == ["runtime-assumption", "kernel-logic"]
    assert "empty sequence" in (next_check(report) or "")


# --- a reference framework's result and CuPy's printed one per line, whole numbers that differ ---------------------

CUPY_TRANSPOSE = corpus_log("holdout18", "h18b-cupy-inplace-add-own-transpose")  # NumPy's and CuPy's x.sum()


def test_two_framework_labelled_whole_results_that_differ_are_a_failure() -> None:
    assert comparison_lines(CUPY_TRANSPOSE) == [(1, "numpy : 99990000")]
    assert classify_text(CUPY_TRANSPOSE).status != "no-failure"


@pytest.mark.parametrize(
    "text",
    [
        "torch: 2.1, cuda: 12.1\n",  # a version list
        "numpy : 99990000\ncupy : 99990000\n",  # the same result on both
        # cupy.show_config() (cupy/cupy#9029): versions as whole numbers, labelled "Version"
        "CUDA Build Version           : 12080\nCUDA Driver Version          : 12040\n",
        "cuBLAS Version               : 120201\ncuFFT Version                : 11008\n",
    ],
)
def test_versions_and_equal_whole_results_stay_healthy(text: str) -> None:
    assert comparison_lines(text) == []
