"""Families learned from holdout104, holdout105 and holdout106 (after their first measurements), each from its tool's
own messages: a program that cannot load its PTX and says to update the driver, CUTLASS's CUTLASS_NOT_IMPLEMENTED()
fallback of an arch primitive, CCCL's checks of the C++ dialect, torch's device check quoted without its head, cuDNN
frontend's plan creation that found no engine, Dr.Jit's CUDA backend found inactive, a wrong result from
Inductor-generated code (the compiler's or the program's), and the failure lines a log shows without an error's head.
Each is tested on the development cases and on nearby text that must not take its answer."""

from __future__ import annotations

import pytest

from diagnose.failure_lines import failure_lines
from tests.core.corpus_logs import assert_family_abstains, assert_family_answers, corpus_log, verdict


@pytest.mark.parametrize(
    ("where", "case_id", "category", "rule"),
    [
        ("holdout104", "h104b-kaspa-miner-ptx-driver-470", "environment", "ptx-load-failed-update-driver"),
        # an installed package's frame calls another module's function with a keyword it does not take
        (
            "holdout104",
            "h104a-mace-cueq020-optimize-fallback-typeerror",
            "environment",
            "concept-api-mismatch-across-packages",
        ),
        (
            "holdout105",
            "h105f-scaled-mm-rowwise-sm89-not-built",
            "environment",
            "cutlass-arch-primitive-not-implemented",
        ),
        ("holdout106", "h106b-bitsandbytes-thrust-cxx11-old-host-gcc", "environment", "cccl-cpp-dialect-too-old"),
    ],
)
def test_a_family_from_the_tool_s_own_messages_answers_its_case(
    where: str, case_id: str, category: str, rule: str
) -> None:
    assert_family_answers(corpus_log(where, case_id), category, rule)


def test_torch_s_device_check_is_read_from_its_tail() -> None:
    # the format's tail (aten/src/ATen/core/adaption.cpp: "%s is on %s, different from other tensors on %s"), quoted
    # without "Expected all tensors to be on the same device, but got" (holdout104's torch-sim report has the tail
    # alone; there the library's own code left the tensor on the CPU, which the text cannot show)
    text = "mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)\n"
    assert_family_answers(text, "runtime-assumption", "torch-tensors-on-two-devices")


@pytest.mark.parametrize(
    ("where", "case_id", "family"),
    [
        # eager right and compiled wrong is the compiler's; both wrong, the program's: the log alone does not say
        ("holdout105", "h105f-triton35-ptxas-maxpool2d-miscompile", "numerics-mismatch-in-generated-code"),
        # Dr.Jit's CUDA backend inactive: libcuda not found, or the backend used before it was initialised
        ("holdout104", "h104c-drjit-jit-init-race-cuda-inactive", "drjit-cuda-backend-inactive"),
        # no engine for the graph: the shape cuDNN lacks here, the cuDNN release, or the framework's routing
        ("holdout105", "h105f-cudnn-9-24-no-sdpa-engines-sm107", "cudnn-frontend-no-execution-plan"),
    ],
)
def test_a_family_with_several_owners_abstains_with_them(where: str, case_id: str, family: str) -> None:
    assert_family_abstains(corpus_log(where, case_id), family)


@pytest.mark.parametrize(
    "case_id",
    [
        # the reporter's sentence says the call gives an error, and quotes it
        "h104c-nvdiffrast-texture-even-channel-bogus-align-check",
        # Dr.Jit's jitc_fail: "Critical Dr.Jit compiler failure: ..."
        "h104c-mitsuba-drjit-unknown-variable-regression",
    ],
)
def test_a_failure_stated_without_an_error_s_head_is_no_healthy_log(case_id: str) -> None:
    log = corpus_log("holdout104", case_id)
    assert failure_lines(log), log
    assert verdict(log)[0] != "no-failure"


def test_an_expected_and_an_actual_block_that_differ_are_a_failure() -> None:
    log = corpus_log("holdout105", "h105g-numba-cuda-cache-stale-imported-device-fn")
    assert [n for n, _ in failure_lines(log)] == [2] and verdict(log)[0] == "unknown"
    assert verdict("Expected Result\n[2,3]\nActual Result\n[2,3]\n")[0] == "no-failure"


@pytest.mark.parametrize(
    "text",
    [
        # the PTX is loaded and the driver advice is a tip, not a failure to load
        "Loaded PTX module for sm_86 from cache. Tip: keep your driver updated for the best performance.\n",
        # a CUTLASS primitive named in a build listing, not its fallback's words
        "Compiling cutlass::arch::Mma<cutlass::gemm::GemmShape<16, 8, 32>> for sm_89\n",
        # the dialect named in a configure step that passed
        "-- The CUDA compiler identification is NVIDIA 13.0.48; CMAKE_CUDA_STANDARD 17 (CUB requires at least C++17)\n",
        # a mismatch with no generated kernel or compiler test named
        "AssertionError: Tensor-likes are not close!\n\nMismatched elements: 4 / 1000 (0.4%)\n",
        # the error said not to come
        "Calling dr.texture no longer gives the error after the fix; all samples render.\n",
    ],
)
def test_the_families_answer_only_their_own_messages(text: str) -> None:
    rule = verdict(text)[2]
    assert rule not in (
        "ptx-load-failed-update-driver",
        "cutlass-arch-primitive-not-implemented",
        "cccl-cpp-dialect-too-old",
        "numerics-mismatch-in-generated-code-as-environment",
    ), rule
