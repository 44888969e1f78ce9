"""Numbers in a log that decide the owner: a status code printed as a number, a count that wrapped or is
zero, a requested size against a stated limit, a null address, an arch-specific target name.

The logs are public reports (corpus/holdout6, each with its repo#issue); the expectations are what the
numbers in each line decide, not the corpus label."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_record
from diagnose.collectors import families
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

ROOT = Path(__file__).resolve().parents[2]
MATCHER = Matcher(default_rules())
CASES = {c["id"]: c for c in yaml.safe_load((ROOT / "corpus" / "holdout6" / "issues.yaml").read_text())}


def _report(text: str):
    return classify_record(InputRecord(id="t", text=text), MATCHER)


def _best(text: str):
    report = _report(text)
    assert report.diagnosis is not None and report.diagnosis.best is not None, report.status
    return report.diagnosis.best


@pytest.mark.parametrize(
    ("case", "rule", "category", "mode"),
    [
        # unslothai/unsloth#7: n = 46336 is below the printed maximum 65535, yet the check fired
        (
            "unsloth-fused-ce-block-limit-off-by-one",
            "concept-size-check-fires-below-limit",
            "kernel-logic",
            "wrong-launch-config",
        ),
        # unslothai/unsloth#19: n = 102400 is over the printed maximum 65536
        (
            "unsloth-fused-ce-vocab-102400-over-block",
            "concept-size-over-stated-kernel-limit",
            "runtime-assumption",
            "shape-exceeds-kernel-limit",
        ),
        # pytorch/pytorch#43476: N = -2^31 in PyTorch's own internal assert
        (
            "torch-conv3d-nocudnn-launch-size-int32-wrap",
            "torch-launch-blocks-negative-count",
            "kernel-logic",
            "int32-index-overflow",
        ),
        # tensorflow/tensorflow#526: (0 vs. 216) is CUDA_ERROR_CONTEXT_ALREADY_IN_USE
        (
            "tf-streamexecutor-exclusive-thread-compute-mode",
            "cuda-devices-unavailable",
            "environment",
            "exclusive-compute-mode",
        ),
        # JuliaGPU/CUDA.jl#348 and saintslab/carbontracker#36: an NVML NOT_SUPPORTED the program did not handle
        (
            "cudajl-test-runner-nvml-not-supported",
            "nvml-query-not-supported-raised",
            "runtime-assumption",
            "nvml-query-unsupported",
        ),
        (
            "carbontracker-nvml-power-usage-not-supported",
            "nvml-query-not-supported-raised",
            "runtime-assumption",
            "nvml-query-unsupported",
        ),
        # openxla/xla#4970: sm_90a PTX assembled for sm_90 (the same GPU's generic name)
        (
            "xla-jax-triton-ptxas-sm90a-target-on-sm90",
            "ptxas-arch-specific-ptx-given-generic-name",
            "environment",
            "version-skew",
        ),
    ],
)
def test_the_numbers_decide(case: str, rule: str, category: str, mode: str) -> None:
    best = _best(CASES[case]["log"])
    assert (best.rule, best.category, best.failure_mode) == (rule, category, mode)


def test_the_printed_size_and_limit_are_read_in_order() -> None:
    below = families.parse(CASES["unsloth-fused-ce-block-limit-off-by-one"]["log"])
    over = families.parse(CASES["unsloth-fused-ce-vocab-102400-over-block"]["log"])
    assert below is not None and (below.requested, below.limit, below.over_limit) == (46336, 65535, False)
    assert over is not None and (over.requested, over.limit, over.over_limit) == (102400, 65536, True)


@pytest.mark.parametrize(
    "case", ["spconv-launch-blocks-n-zero-conv-params-drop-all", "torch-bmm-port-zero-batch-bgemm-check"]
)
def test_a_zero_count_abstains_between_the_caller_and_the_library(case: str) -> None:
    # traveller59/spconv#550, pytorch/pytorch#42553: whether the API accepts an empty input decides
    report = _report(CASES[case]["log"])
    assert report.category == "unknown"
    assert report.diagnosis is not None
    owners = {(f.category, f.failure_mode) for f in report.diagnosis.findings}
    assert {("runtime-assumption", "empty-input"), ("kernel-logic", "empty-input")} <= owners
    assert "on CPU" in (report.diagnosis.findings[0].caveats or "")


def test_a_wrapped_count_outside_an_internal_assert_is_the_inputs_size() -> None:
    # the message of torch/include/ATen/cuda/detail/KernelUtils.h (torch 2.13.0) as an extension prints it,
    # with the value of pytorch/pytorch#43476
    best = _best("error: CUDA kernel launch blocks must be positive, but got N=-2147483648")
    assert (best.rule, best.category, best.failure_mode) == (
        "launch-count-negative",
        "runtime-assumption",
        "int32-index-overflow",
    )


def test_a_small_negative_count_is_no_wrap() -> None:
    # a count of -1 is a size computation gone below zero, not a 32-bit wrap: neither family reads it
    assert families.parse("error: CUDA kernel launch blocks must be positive, but got N=-1") is None


def test_a_null_address_in_the_projects_own_kernel_stays_with_the_kernel_rules() -> None:
    # zama-ai/concrete-core#332 (the project's own kernel), its address changed to 0x0 here: the library rule
    # needs a library's namespace in the kernel name, so only the kernel name keeps it from firing
    from diagnose.collectors import sanitizer

    log = (ROOT / "tests/fixtures/sanitizer/issue-concrete-core-332-old-at-format.txt").read_text()
    log = log.replace("Address 0x964000008", "Address 0x0")
    facts = sanitizer.parse(log)
    assert facts is not None and facts.null_address is not None
    assert _best(log).rule != "sanitizer-null-address-in-library-kernel"


def test_the_fix_for_an_unsupported_arch_does_not_suggest_the_rejected_arch() -> None:
    # NVIDIA/cub#741-style nvcc message (corpus/holdout6 active-sparse-shifts-compute86-cuda110)
    best = _best(CASES["active-sparse-shifts-compute86-cuda110"]["log"])
    assert best.rule == "nvcc-unsupported-arch"
    assert "8.6" not in best.fix and "compute_86,code" not in best.fix and "compute_86" in best.fix


def test_a_bare_invalid_configuration_names_the_zero_size_grid_among_the_candidates() -> None:
    # PaddlePaddle/Paddle#47111: memcheck's record with no grid numbers, at Paddle's own op (its host frame): the
    # library's launch and the caller's input both fit, so kdiag abstains, and the empty-input reading and its
    # check (print the grid, look for a 0) are among the candidates
    report = _report(CASES["paddle-scale-zero-size-grid"]["log"])
    assert report.category == "unknown" and report.diagnosis is not None
    rules = [f.rule for f in report.diagnosis.findings]
    assert rules[0] == "cuda-invalid-configuration-in-library"
    (empty,) = [f for f in report.diagnosis.findings if f.rule == "cuda-invalid-configuration-zero-size-grid"]
    assert empty.failure_mode == "empty-input" and "a 0 in any dimension" in empty.fix


def test_a_memory_error_after_a_2gib_array_leads_with_the_32_bit_offset_and_abstains() -> None:
    # chainer/chainer#2530: arange(2**29 + 1, int32) is 2 GiB + 4 bytes
    report = _report(CASES["cupy-elementwise-32bit-pointer-overflow-2gib"]["log"])
    assert report.category == "unknown"
    assert report.diagnosis is not None
    top = report.diagnosis.findings[0]
    assert (top.rule, top.failure_mode) == ("concept-memory-error-past-2gib-array", "int32-index-overflow")


@pytest.mark.parametrize(
    "case", ["tf-eigh-zero-matrix-cusolver-status-7", "torch-eigh-cusolver-syevd-execution-failed-cuda121"]
)
def test_a_cusolver_failure_by_number_or_name_abstains_with_the_library_first(case: str) -> None:
    # tensorflow/tensorflow#47661 prints only "status =7" (CUSOLVER_STATUS_INTERNAL_ERROR in cusolver_common.h);
    # pytorch/pytorch#94772 prints CUSOLVER_STATUS_EXECUTION_FAILED
    report = _report(CASES[case]["log"])
    assert report.category == "unknown"
    assert report.diagnosis is not None
    top = report.diagnosis.findings[0]
    assert (top.category, top.failure_mode) == ("environment", "library-bug")
    assert "on CPU" in (top.caveats or "")


@pytest.mark.parametrize(
    ("line", "family"),
    [
        # constructed lines in the "failed with status N" form; the numbers are cublasStatus_t of
        # include/cublas_api.h (nvidia-cublas-cu12 12.9.3.13): 13 and 14
        ("cublasSgemm failed with status 13", "cublas-execution-failed"),
        ("cuBLAS call failed with status = 14", "cublas-internal-error"),
    ],
)
def test_a_cublas_status_number_reads_as_its_name(line: str, family: str) -> None:
    facts = families.parse(line)
    assert facts is not None and facts.families == (family,)


def test_a_version_number_after_cublas_is_no_status() -> None:
    assert families.parse("cublas version 12.1 status 1.5") is None


def test_a_null_address_in_a_framework_op_names_the_null_pointer_and_leaves_the_owner_open() -> None:
    """pytorch/pytorch#188958: Address 0x0 in an ATen kernel is a null data pointer, not an index; whether the
    empty tensor was the caller's to reject or the op's to handle is the op's contract (pytorch/pytorch#195185,
    corpus/holdout13, is the same record where the op had to handle it)."""
    report = _report(CASES["torch-bn-backward-reduce-inconsistent-fuzz-inputs"]["log"])
    assert report.category == "unknown" and report.diagnosis is not None
    top = report.diagnosis.findings[0]
    assert top.rule == "sanitizer-oob-in-framework-op-kernel"
    assert "null pointer" in top.what
