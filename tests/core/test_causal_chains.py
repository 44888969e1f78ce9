"""Causal chains (diagnose.causal): a failure printed after the failure that caused it ranks below it.

Each chain is tested on a real log of a development set (corpus/holdout10, the thread in the case's
``source``) and on another wording of the same chain, built from a tool's own output: a real NVRTC run's
log (tests/fixtures/compiler/nvrtc-undefined-identifier.log, see its .source.yaml) followed by the CUDA
driver's text for the failed load, and XLA's own context-creation message (xla_cuda_plugin.so strings,
jax-cuda12-pjrt 0.10.2) followed by its "No visible GPU devices."."""

from __future__ import annotations

from pathlib import Path

from corpus_logs import classify_text, corpus_log, decided

from diagnose.collectors import collect
from diagnose.collectors.compile_cause import arch_gate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "compiler"
NVRTC_LOG = (FIXTURES / "nvrtc-undefined-identifier.log").read_text()
# cuGetErrorName/cuGetErrorString of CUDA_ERROR_INVALID_IMAGE (include/cuda.h, CUDA 13.0.88, code 200)
LOAD_FAILED = "CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid\n"


def _caused_by(text: str, rule: str) -> str | None:
    report = classify_text(text)
    assert report.diagnosis is not None
    for f in report.diagnosis.findings:
        if f.rule == rule:
            return dict(f.facts).get("caused_by")
    raise AssertionError(f"{rule} did not match")


def test_compile_error_decides_over_the_image_it_failed_to_build() -> None:
    # holdout10 xmrig-nvrtc-funnelshift-undefined-sm30 (xmrig/xmrig-nvidia#246)
    log = corpus_log("holdout10", "xmrig-nvrtc-funnelshift-undefined-sm30")
    # the compile error leads; without the build's arch in the log it abstains between the arch and the toolkit
    report = classify_text(log)
    assert report.diagnosis is not None
    assert report.diagnosis.findings[0].rule == "nvcc-arch-gated-intrinsic-as-runtime-assumption"
    compiler = collect(log).compiler
    assert compiler is not None and compiler.first_error_file == "CryptonightR.cu"  # not its "Program compile log: "
    note = _caused_by(log, "cudart-kernel-image-invalid")
    assert note is not None and "line 5" in note and "line 2" in note


def test_compile_chain_holds_for_another_wording() -> None:
    text = NVRTC_LOG + LOAD_FAILED
    category, mode, rule = decided(text)
    assert rule != "cudart-kernel-image-invalid"
    assert (category, mode) == ("kernel-logic", "compile-source-error")
    assert _caused_by(text, "cudart-kernel-image-invalid") is not None


def test_a_load_failure_printed_before_the_compile_error_is_not_its_consequence() -> None:
    text = LOAD_FAILED + NVRTC_LOG
    assert _caused_by(text, "cudart-kernel-image-invalid") is None


def test_load_failure_alone_keeps_its_answer() -> None:
    assert decided(LOAD_FAILED)[2] == "cudart-kernel-image-invalid"


def test_funnel_shift_intrinsics_need_sm_32() -> None:
    # sm_32_intrinsics.h (CUDA 13.0.88) declares them under __CUDA_ARCH__ >= 320
    assert arch_gate('identifier "__funnelshift_r" is undefined', []) == ("sm_32", "__funnelshift_r")
    assert arch_gate('identifier "__ldg" is undefined', []) == ("sm_32", "__ldg")
    assert arch_gate('identifier "__my_helper" is undefined', []) is None


def test_context_creation_failure_decides_over_no_device() -> None:
    # holdout10 tensorflow-ctx-retain-oom-other-users-processes (tensorflow/tensorflow#30594)
    log = corpus_log("holdout10", "tensorflow-ctx-retain-oom-other-users-processes")
    assert decided(log) == ("environment", "oom-other-process", "context-creation-out-of-memory")
    assert _caused_by(log, "xla-no-visible-gpu") is not None


def test_context_chain_holds_for_jax_wording() -> None:
    # xla_cuda_plugin.so (jax-cuda12-pjrt 0.10.2) strings: "Failed to retain context: " and "No visible GPU devices."
    text = "Failed to retain context: CUDA_ERROR_OUT_OF_MEMORY: out of memory\nNo visible GPU devices.\n"
    assert decided(text) == ("environment", "oom-other-process", "context-creation-out-of-memory")


def test_no_device_alone_keeps_its_answer() -> None:
    text = "RuntimeError: Unable to initialize backend 'cuda': No visible GPU devices.\n"
    assert decided(text)[1] == "no-gpu-visible"


def test_a_compile_that_worked_causes_nothing() -> None:
    # ptxas -v's resource report of a compile that succeeded (a real ptxas run, see its .source.yaml)
    report = (FIXTURES / "ptxas-register-spills.log").read_text()
    assert decided(report + LOAD_FAILED)[2] == "cudart-kernel-image-invalid"


def test_a_failed_library_handle_decides_over_the_check_that_needed_it() -> None:
    # holdout19 h19b-jax-cublas-init-second-jax-process (mfinzi/equivariant-MLP#7): cuBLAS could not create
    # its handle, then XLA's GEMM autotuner aborted on "Check failed: ...GetBlasGemmAlgorithms(...)"
    log = corpus_log("holdout19", "h19b-jax-cublas-init-second-jax-process")
    assert decided(log) == ("environment", "library-init-failed", "concept-library-handle-create-failed")
    note = _caused_by(log, "xla-check-failed")
    assert note is not None and "line 2" in note and "line 1" in note


def test_a_check_printed_before_the_library_failure_is_not_its_consequence() -> None:
    first, second = corpus_log("holdout19", "h19b-jax-cublas-init-second-jax-process").splitlines()[:2]
    assert _caused_by(f"{second}\n{first}\n", "xla-check-failed") is None


def test_tensorflow_1x_lower_case_cudnn_handle_failure_is_the_library_init() -> None:
    # tensorflow/tensorflow#14111: TF 1.x's cuda_dnn.cc wrote "could not create cudnn handle" in lower case
    text = (
        "2017-10-30 17:55:23.525428: E tensorflow/stream_executor/cuda/cuda_dnn.cc:371] could not create cudnn "
        "handle: CUDNN_STATUS_INTERNAL_ERROR\n"
        "2017-10-30 17:55:23.525452: E tensorflow/stream_executor/cuda/cuda_dnn.cc:338] could not destroy cudnn "
        "handle: CUDNN_STATUS_BAD_PARAM\n"
        "2017-10-30 17:55:23.525458: F tensorflow/core/kernels/conv_ops.cc:672] Check failed: "
        "stream->parent()->GetConvolveAlgorithms( conv_parameters.ShouldIncludeWinogradNonfusedAlgo<T>(), &algorithms) \n"
        "Aborted (core dumped)\n"
    )
    assert decided(text)[:2] == ("environment", "library-init-failed")
