"""The failing API call kdiag parsed decides the check: an "invalid argument" from a memory copy or memset is
about that call's pointers and size, not about launch limits.

Real logs of a development set (corpus/holdout10, the thread in the case's ``source``) and other wordings:
cuda-samples' checkCudaErrors report (Common/helper_cuda.h, ``check()``: ``CUDA error at %s:%d code=%d(%s)
"%s"``), the driver API's CUresult name (include/cuda.h, CUDA 13.0.88) after a driver call, and ggml's
CUDA error report (ggml-cuda.cu, ``ggml_cuda_error``)."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided

from diagnose.collectors import collect

RULE = "cuda-invalid-value-in-copy-or-set"


@pytest.mark.parametrize(
    "text",
    [
        corpus_log(
            "holdout10", "dbot-cudamemset-invalid-argument-uninitialized-size"
        ),  # bayesian-object-tracking/dbot#2
        corpus_log("holdout10", "ggml-cuda-cpy-device-to-device-host-pointer"),  # ggml-org/llama.cpp#19966
        'CUDA error at main.cu:57 code=1(cudaErrorInvalidValue) "cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice)"\n',
        "cuMemsetD32 failed: CUDA_ERROR_INVALID_VALUE\n",
    ],
)
def test_invalid_argument_of_a_copy_or_memset_is_the_callers_arguments(text: str) -> None:
    assert decided(text) == ("kernel-logic", "api-misuse", RULE)
    report = classify_text(text)
    assert report.diagnosis is not None and report.diagnosis.best is not None
    fix = report.diagnosis.best.fix
    assert "cudaPointerGetAttributes" in fix and "size" in fix
    assert "65535" not in fix and "1024 threads" not in fix


def test_ggml_prints_the_failing_statement_two_lines_under_the_error() -> None:
    log = corpus_log("holdout10", "ggml-cuda-cpy-device-to-device-host-pointer")
    cuda = collect(log).cuda
    assert cuda is not None and cuda.api_call == "cudaMemcpyAsyncReserve"
    assert 10 in cuda.lines  # the statement is cited


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: CUDA error: invalid argument\n",  # no call named
        # ggml's report for a launch check: the statement is no copy
        "CUDA error: invalid argument\n  current device: 0, in function ggml_cuda_op_mul_mat at ggml-cuda.cu:1200\n"
        "  cudaGetLastError()\n",
        # a copy that failed for another reason is not this rule's
        'CUDA error at main.cu:57 code=2(cudaErrorMemoryAllocation) "cudaMemcpy(d_a, h_a, n, cudaMemcpyHostToDevice)"\n',
    ],
)
def test_other_invalid_arguments_are_not_called_a_copy(text: str) -> None:
    assert decided(text)[2] != RULE


def test_a_virtual_memory_access_call_is_not_a_memset() -> None:
    # cuMemSetAccess (driver API, virtual memory management) rejects its arguments for other reasons
    assert decided("cuMemSetAccess failed: CUDA_ERROR_INVALID_VALUE\n")[2] != RULE
