"""Families learned from holdout102 (after its first measurement), each from its tool's own message table or format.

NVSHMEM's check that a host call found the library initialised (nvshmem_internal.h), cuFile's status strings
(cufile.h's CUfileOpError table), UCX's request that no protocol can serve (ucp/proto/proto_reconfig.c), MLIR's
verifier on a value used where its definition does not reach (mlir/lib/IR/Verifier.cpp), a Python ``assert a % b == 0``
printed by the traceback over AssertionError, and a binding's exception named after its C library's lower-case prefix.
Each is tested on the development case and on nearby text that must not take its answer."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import assert_family_abstains, assert_family_answers, corpus_log, verdict


@pytest.mark.parametrize(
    ("case_id", "category", "rule"),
    [
        ("h102c-gdsio-ext4-mount-not-supported", "environment", "cufile-gds-unsupported-here"),
        ("h102c-nixl-ucx-gb300-cuda13-no-remote-protocol", "environment", "ucx-no-remote-protocol"),
        ("h102d-fla-gated-deltanet-triton22-operand-dominance", "environment", "mlir-verifier-operand-dominance"),
        ("h102d-mamba2-dssm-not-multiple-of-headdim", "runtime-assumption", "python-assert-size-divisible"),
    ],
)
def test_a_family_from_the_tool_s_own_table_answers_its_case(case_id: str, category: str, rule: str) -> None:
    assert_family_answers(corpus_log("holdout102", case_id), category, rule)


def test_nvshmem_called_uninitialised_abstains_between_the_start_up_and_the_call_order() -> None:
    assert_family_abstains(corpus_log("holdout102", "h102a-pplx-kernels-duplicate-nvshmem-device-state"), "nvshmem-api")


def test_a_gpu_without_gds_is_a_candidate_not_an_answer() -> None:
    assert_family_abstains(
        "cuFileHandleRegister error: GPUDirect Storage not supported on current GPU\n", "cufile-gds-unsupported-gpu"
    )


@pytest.mark.parametrize(
    "text",
    [
        # the condition's source line without AssertionError after it: a listing, not a failure of it
        "    assert self.d_ssm % self.headdim == 0\n    self.nheads = self.d_ssm // self.headdim\n",
        # a divisibility assert that held, then another error
        "    assert n % 4 == 0\nRuntimeError: CUDA error: out of memory\n",
    ],
)
def test_a_divisibility_assert_answers_only_over_its_assertion_error(text: str) -> None:
    assert verdict(text)[2] != "python-assert-size-divisible"


def test_a_binding_s_lower_case_exception_is_a_failure() -> None:
    status, _, _ = verdict(corpus_log("holdout102", "h102c-sglang-nixl-hetero-tp-gqa-not-found"))
    assert status != "no-failure"


def test_a_registered_operator_called_against_its_schema_abstains_as_a_python_call_does() -> None:
    # PyTorch's binding of a call to a custom op's schema (torch/csrc/jit/python/pybind_utils.h): another library's
    # release, or a wrong call, as CPython's own TypeError for a function
    log = corpus_log("holdout102", "h102d-deepspeed-fpdt-flash-attn-270-window-size-left")
    assert_family_abstains(log, "python-call-signature-mismatch")
