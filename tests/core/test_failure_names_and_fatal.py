"""Failures printed without an error severity word: a glog/absl FATAL line pasted without its date, a CUDA
hardware exception printed by its name alone (cuda-gdb's exception table), and an exception printed as its
repr.  A log made of one of them is ``unknown`` when no rule decides it, never ``no-failure``.

Each family is tested on a development case (corpus/holdout12, public reports: the thread named in the case's
``source``) and on other wordings from the tools' own sources, with healthy look-alikes that must stay silent."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log

from diagnose.failure_lines import is_failure_line


@pytest.mark.parametrize(
    "case_id",
    [
        # NVIDIA/cutlass#521: cuda-gdb's exception name alone
        "cutlass-sm70-warp-misaligned-untargeted-tile",
        # triton-lang/triton#11358: triton.runtime.errors.OutOfResources printed as its repr
        "triton-kernels-blackwell-mxfp-tmem-columns",
        # jax-ml/jax#7866: XLA's cuda_dnn.cc LOG(FATAL) line without its date and thread
        "jax-bf16-conv-invalid-dnn-data-type-cudnn-skew",
    ],
)
def test_a_named_failure_is_never_healthy(case_id: str) -> None:
    assert classify_text(corpus_log("holdout12", case_id)).status != "no-failure"


@pytest.mark.parametrize(
    "line",
    [
        # glog src/logging.cc LogMessage::Init prefix "Fmmdd hh:mm:ss.uuuuuu threadid file:line] " with the date
        # and thread cut off, as users paste it (TensorFlow's stream_executor/cuda/cuda_driver.cc LOG(FATAL))
        "F tensorflow/stream_executor/cuda/cuda_driver.cc:175] Check failed: err == cudaSuccess",
        # TensorFlow's (tsl/platform/default/logging.cc) own prefix: date, then the severity letter
        "2021-09-01 10:00:00.123456: F tensorflow/core/kernels/conv_ops.cc:1108] Invalid DNN data type",
        # cuda-gdb exception table (CUDA-GDB manual, "Exception Codes"): other names of the family
        "Lane Illegal Address",
        "Warp Illegal Instruction",
        "Device Hardware Stack Overflow",
        "Cluster Out-of-range Address",
        # cuda-gdb's own report line of the same exception
        "CUDA Exception: Warp Out-of-range Address",
        # Python's BaseException.__repr__ of other exceptions: triton/runtime/errors.py classes and builtins
        "triton.runtime.errors.OutOfResources(232448, 101376, 'shared memory')",
        "RuntimeError('CUDA error: an illegal memory access was encountered')",
        'CompilationError("at 12:4: unsupported tensor index")',
    ],
)
def test_failure_names_without_a_severity(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "I0901 10:00:00.123456 1234 cuda_dnn.cc:1011] Loaded cuDNN version 8902",
        "F = compute_forces(x)",
        "Warp size: 32",
        "the Warp Illegal Address exception is raised when ...",
        "raise_on_error(RuntimeError)",
        "errors = ErrorList()",
        "Fused kernel stats.cc:12] ok",
    ],
)
def test_look_alikes_stay_silent(line: str) -> None:
    assert not is_failure_line(line)
