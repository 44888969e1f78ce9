"""XLA's autotuners and verifiers, Mosaic GPU's layout inference, and a RESOURCE_EXHAUSTED status with no
figures (XLA's absl code, TensorFlow's ResourceExhaustedError and its 1.x "Resource exhausted:"): families
read from the tools' sources (diagnose/data/catalogue/xla-autotuner.yaml, mosaic-gpu.yaml, the
``xla-status-resource-exhausted`` and ``tf-resource-exhausted`` families), and the failure-line shapes of the
absl status codes.

A message that decides (two candidates compiled by XLA itself disagree; a pass's own invariant) gives a
verdict; one that fits several owners abstains, with the candidates ranked and the check that decides."""

from __future__ import annotations

import pytest

from diagnose.failure_lines import is_failure_line
from tests.core.corpus_logs import classify_text, corpus_log, verdict


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        # corpus/holdout8 jax-triton-fusion-miscompile-sm120 (jax-ml/jax#39486)
        (
            corpus_log("holdout8", "jax-triton-fusion-miscompile-sm120"),
            "xla-triton-fusion-output-mismatch",
            "environment",
        ),
        # xla/service/gpu/autotuning/conv_algorithm_picker.cc LOG(ERROR), as TF/JAX print it
        (
            "2024-03-06 09:57:23.380707: E external/local_xla/xla/service/gpu/conv_algorithm_picker.cc:705] Results "
            "mismatch between different convolution algorithms. This is likely a bug/unexpected loss of precision in "
            "cudnn.\n",
            "xla-conv-autotuner-results-mismatch",
            "environment",
        ),
        # xla/service/gpu/buffer_comparator.cc, the element lines printed before it
        (
            "2024-03-06 09:57:23.380391: E external/local_xla/xla/service/gpu/buffer_comparator.cc:1137] Difference at "
            "9: 2.73743, expected 1.92145\n",
            "xla-conv-autotuner-results-mismatch",
            "environment",
        ),
        # jax/experimental/mosaic/gpu/layout_inference.py of jax 0.5-0.6
        (
            "ValueError: Failed to infer a possible set of layouts. This should never happen.\n",
            "mosaic-gpu-layout-inference-never",
            "environment",
        ),
    ],
)
def test_messages_that_decide(text: str, rule: str, category: str) -> None:
    status, cat, got = verdict(text)
    assert (status, cat, got) == ("diagnosed", category, rule)


@pytest.mark.parametrize(
    ("text", "first", "others"),
    [
        # corpus/holdout10 mosaic-gpu-rank3-layout-inference-tiling-axes-bug (jax-ml/jax#39997)
        (
            corpus_log("holdout10", "mosaic-gpu-rank3-layout-inference-tiling-axes-bug"),
            "environment/compiler-bug",
            {"kernel-logic/language-misuse"},
        ),
        # corpus/holdout7 jama16-retina-tf-oom-batch-size (mikevoets/jama16-retina-replication#5)
        (
            corpus_log("holdout7", "jama16-retina-tf-oom-batch-size"),
            "runtime-assumption/oom-problem-size",
            {"environment/oom-other-process", "kernel-logic/memory-leak"},
        ),
        # corpus/holdout6 jaxlib-0118-bfc-fragmentation-oom (jax-ml/jax#788): TF 1.x's name of the status
        (
            corpus_log("holdout6", "jaxlib-0118-bfc-fragmentation-oom"),
            "runtime-assumption/oom-problem-size",
            {"environment/oom-other-process"},
        ),
        # constructed: absl::StatusCodeToString's name as jaxlib raises it, before a message no family knows
        (
            "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Allocation of 3 bytes failed\n",
            "runtime-assumption/oom-problem-size",
            {"environment/oom-other-process"},
        ),
        # constructed from xla/service/gpu/autotuning/autotuner_util.cc (AllAlgorithmsFailedInternalError,
        # NoAlgorithmSuppliedInternalError) with an instruction name filled in
        (
            "INTERNAL: All algorithms tried for %cublas-gemm.1 failed. Falling back to default algorithm.  "
            "Per-algorithm errors:\n",
            "runtime-assumption/oom-problem-size",
            {"environment/version-skew"},
        ),
        (
            "INTERNAL: There are no algorithm candidates for computing: \n  %cudnn-conv.3 = ...\n"
            "This likely means that the instruction shape is not supported by the target GPU library.\n",
            "runtime-assumption/library-unsupported-config",
            {"environment/version-skew"},
        ),
    ],
)
def test_messages_that_abstain_with_ranked_candidates(text: str, first: str, others: set[str]) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings
    names = [f"{f.category}/{f.failure_mode}" for f in d.findings]
    assert names[0] == first and others <= set(names)
    assert d.findings[0].caveats  # the check that decides between them


def test_a_decided_oom_message_outranks_the_bare_status() -> None:
    # the figures decide: XLA's own OOM family, not the status's candidates
    status, category, rule = verdict(
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 5520758552 bytes.\n"
    )
    assert (status, category, rule) == ("diagnosed", "runtime-assumption", "xla-oom-while-trying-to-allocate")


def test_rocm_launch_failure_abstains_like_the_cuda_one() -> None:
    # corpus/public/taxonomy-gaps xla-rocm-triton-softmax-warp-size-64 (XLA's rocm_driver.cc wording)
    report = classify_text(corpus_log("public/taxonomy-gaps.yaml", "xla-rocm-triton-softmax-warp-size-64"))
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.rule == "xla-failed-to-launch-kernel-as-runtime-assumption"


@pytest.mark.parametrize(
    "line",
    [
        # absl::StatusCodeToString names (absl/status/status.cc) that XLA and TF print before the message
        "NOT_FOUND: could not find registered platform with id: 0x7f",
        "PERMISSION_DENIED: open(/dev/nvidia0) failed",
        "Status: CANCELLED: Cancelled",
        "ALREADY_EXISTS: Plugin cuda already registered",
        # TensorFlow 1.x's names (tensorflow/core/lib/core/status.cc error_name)
        "Resource exhausted: OOM when allocating tensor with shape[64,256,56,56]",
        "Failed precondition: DNN library initialization failed",
        # an instance numbered 0 that failed is not a count of zero failures
        "Execution of replica 0 failed: Resource exhausted: Out",
        "Execution of replica 0 failed: INTERNAL: x",
    ],
)
def test_status_names_are_failure_lines(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "2 passed, 0 failed",
        "Tests: 0 failed",
        "collected 12 items: 12 passed, 0 failed, 0 errors",
        "Unknown: 3",
        "Internal: yes",
        "Not found: 0 files",
        "NOT_FOUND_IS_OK = True",
    ],
)
def test_status_look_alikes_stay_silent(line: str) -> None:
    assert not is_failure_line(line)


@pytest.mark.parametrize(
    "text",
    [
        # TensorFlow's gpu_device.cc over its CUDA runtime stub, as a public project's notes quote it
        "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status: cudaGetErrorString "
        "symbol not found\n",
        # jaxlib 0.1.x's CUDA helpers over the same stub, as a public package's install notes quote it
        "RuntimeError: CUDA operation failed: cudaGetErrorString symbol not found\n",
    ],
)
def test_the_cuda_runtime_stub_without_libcudart_is_the_machines(text: str) -> None:
    assert verdict(text) == ("diagnosed", "environment", "tf-cudart-stub-library-not-loaded")


def test_a_triton_kernel_over_the_devices_shared_memory() -> None:
    # constructed: jaxlib/gpu/triton_kernels.cc's INVALID_ARGUMENT text, as jaxlib raises a status
    text = "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Shared memory requested exceeds device resources.\n"
    assert verdict(text) == ("diagnosed", "runtime-assumption", "jaxlib-triton-kernel-smem-over-device")


@pytest.mark.parametrize(
    ("requested", "limit", "category", "rule"),
    [
        # an sm_86/sm_89 opt-in limit: a bigger GPU has room, the configuration assumed one
        (163840, 101376, "runtime-assumption", "concept-smem-over-device"),
        # sm_90's limit: no GPU has more, the configuration is too large everywhere
        (300000, 232448, "kernel-logic", "concept-resource-over-every-gpu"),
    ],
)
def test_a_triton_kernel_with_the_figures_is_decided_by_them(
    requested: int, limit: int, category: str, rule: str
) -> None:
    # constructed from jaxlib/gpu/triton_kernels.cc's format ("Shared memory requested (%d b) exceeds device
    # resources (%d b).") with the figures filled in
    text = (
        f"jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Shared memory requested ({requested} b) exceeds device "
        f"resources ({limit} b).\n"
    )
    assert verdict(text) == ("diagnosed", category, rule)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # constructed from jaxlib/gpu/triton_kernels.cc's formats, as jaxlib raises the status
        (
            "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Parameter 2 (140235521343496) is not divisible by 16.\n",
            "jaxlib-triton-kernel-pointer-not-aligned",
        ),
        (
            "jax.errors.JaxRuntimeError: FAILED_PRECONDITION: No launchable configs.\n",
            "jaxlib-triton-autotune-no-launchable-config",
        ),
    ],
)
def test_jaxlib_triton_kernel_call_checks(text: str, rule: str) -> None:
    assert verdict(text) == ("diagnosed", "runtime-assumption", rule)


def test_a_host_callback_that_raised_abstains_on_the_callbacks_traceback() -> None:
    # jaxlib's callback handler wraps the callback's exception ("CpuCallback error calling callback: %s"), as a
    # public project's notes quote it: the wrapped RuntimeError is the callback's own
    text = (
        "jaxlib._jax.XlaRuntimeError: INTERNAL: CpuCallback error calling callback:\n"
        "RuntimeError: Expected vertex ... outgoing rate divided by granularity <= 1.\n"
    )
    report = classify_text(text)
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings and d.findings[0].caveats
    assert (d.findings[0].category, d.findings[0].failure_mode) == ("kernel-logic", "host-callback-error")
