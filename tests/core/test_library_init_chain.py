"""A CUDA library that could not create its handle, and the framework's CHECK that then aborts on a call needing
it: the handle failure printed first is the cause (diagnose/causal.py, library-init-then-check), and the CHECK
stays among the alternatives. Every log is a real report, named beside it."""

from __future__ import annotations

import pytest

from diagnose.catalogue import default_catalogue
from diagnose.collectors.families import facts_from
from tests.core.corpus_logs import classify_text, corpus_log, decided

# stephen-v/tensorflow_alexnet_classify#4: TensorFlow 1.x, cuDNN's handle, then conv_ops.cc's CHECK
TF_CUDNN_NOT_INITIALIZED = (
    "2019-01-23 21:21:11.073710: E tensorflow/stream_executor/cuda/cuda_dnn.cc:455] could not create cudnn handle: "
    "CUDNN_STATUS_NOT_INITIALIZED\n"
    "2019-01-23 21:21:11.073913: E tensorflow/stream_executor/cuda/cuda_dnn.cc:463] possibly insufficient driver "
    "version: 384.145.0\n"
    "2019-01-23 21:21:11.073943: F tensorflow/core/kernels/conv_ops.cc:713] Check failed: "
    "stream->parent()->GetConvolveAlgorithms( conv_parameters.ShouldIncludeWinogradNonfusedAlgo<T>(), &algorithms) \n"
    "Aborted\n"
)
# tensorflow/tensorflow#30254 (a comment): the failed create, then a failed destroy of the handle never made
TF_CUDNN_CREATE_THEN_DESTROY = (
    "2019-07-25 05:52:04.890160: E tensorflow/stream_executor/cuda/cuda_dnn.cc:455] could not create cudnn handle: "
    "CUDNN_STATUS_NOT_INITIALIZED\n"
    "2019-07-25 05:52:04.890268: E tensorflow/stream_executor/cuda/cuda_dnn.cc:463] possibly insufficient driver "
    "version: 384.183.0\n"
    "2019-07-25 05:52:04.890282: E tensorflow/stream_executor/cuda/cuda_dnn.cc:427] could not destroy cudnn handle: "
    "CUDNN_STATUS_BAD_PARAM\n"
)


def test_the_handle_failure_outranks_the_xla_check_it_causes() -> None:
    # mfinzi/equivariant-MLP#7: another JAX process held the memory cuBLAS needed
    text = corpus_log("holdout19", "h19b-jax-cublas-init-second-jax-process")
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None and d.best is not None
    assert (report.category, d.failure_mode, d.rule) == (
        "environment",
        "library-init-failed",
        "concept-library-handle-create-failed",
    )
    check = next(f for f in d.findings if f.rule == "xla-check-failed")
    assert any(k == "caused_by" and "line 2 follows from" in v for k, v in check.facts)
    assert d.best.fix.startswith("First `nvidia-smi`") and "XLA_PYTHON_CLIENT_PREALLOCATE=false" in d.best.fix


def test_a_check_alone_is_still_xlas() -> None:
    # the catalogue's sample of the family (jax-ml/jax#17730)
    text = (
        "2024-02-27 16:32:33.075782: F external/xla/xla/service/gpu/nvptx_compiler.cc:614] "
        "Check failed: options.is_autotuning_compilation"
    )
    assert decided(text)[2] == "xla-check-failed"


@pytest.mark.parametrize("text", [TF_CUDNN_NOT_INITIALIZED, TF_CUDNN_CREATE_THEN_DESTROY])
def test_tensorflow_1_wording_of_the_cudnn_handle(text: str) -> None:
    facts = facts_from(default_catalogue(), text)
    assert facts is not None and "xla-cudnn-handle-failed" in facts.families
    assert decided(text) == ("environment", "library-init-failed", "concept-library-handle-create-failed")
