"""Failures printed without an error word: assertion macros, a process's "Aborting." and cuda-gdb's
exception report (diagnose/failure_lines.py), what cuda-gdb's exceptions mean as CUDA errors
(diagnose/collectors/cuda_errors.py), and the families that read an assertion's condition
(diagnose/data/catalogue/assert-conditions.yaml, cutlass.yaml)."""

from __future__ import annotations

import pytest
from corpus_logs import MATCHER, corpus_log

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.collectors.cuda_errors import parse
from diagnose.failure import has_failure
from diagnose.failure_lines import failure_lines, is_failure_line
from diagnose.inputs import InputRecord

case = corpus_log


def diagnose(text: str) -> tuple[str, str]:
    d = classify_record(InputRecord(id="t", text=text), MATCHER).diagnosis
    assert d is not None
    return d.category, d.failure_mode


# One line each, in the format the cited source prints.
ASSERT_AND_ABORT_LINES = [
    # ggml.h before 2024: fprintf(stderr, "GGML_ASSERT: %s:%d: %s\n", __FILE__, __LINE__, #x)
    # (corpus/holdout8 llamacpp-q8-kv-cache-head-dim-100-assert, ggml-org/llama.cpp#2969)
    "GGML_ASSERT: ggml-cuda.cu:6226: ne00 % ggml_blck_size(src0->type) == 0",
    # ggml.h since 2024: GGML_ABORT("GGML_ASSERT(%s) failed", #x), pasted without its tail
    # (corpus/holdout8 llamacpp-dsv4-transposed-quantized-v-cont-assert, ggml-org/llama.cpp#25851)
    "GGML_ASSERT(tensor->nb[0] == ggml_element_size(tensor))",
    # glibc assert/assert.c "%s%s%s:%u: %s%sAssertion `%s' failed.", the condition of ggml.c's ggml_row_size
    "main: ggml.c:1180: ggml_row_size: Assertion `ne % ggml_blck_size(type) == 0' failed.",
    # Rust core::panicking (assert_eq!): "assertion `left == right` failed"
    "assertion `left == right` failed",
    # XLA xla/status_macros.cc (TF_RET_CHECK): "RET_CHECK failure (%s:%d) %s"
    "RET_CHECK failure (xla/service/gpu/ir_emitter_unnested.cc:1234) ok",
    # CUTLASS include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp, printed without its
    # "ERROR : " prefix (corpus/holdout8 cutlass-example-sm120-without-a-suffix, NVIDIA/cutlass#3174)
    "Arch conditional MMA instruction used without targeting appropriate compute capability. Aborting.",
    # another tool's last word before log_abort(): nextpnr gui/fpgaviewwidget.cc
    "Could not get OpenGL 3.0 context. Aborting.",
    # cuda-gdb, its manual's exception report: "CUDA Exception: %s" and the signal it stops on
    # (corpus/holdout8 llamacpp-memcpy1-int4-cast-warp-misaligned, ggml-org/llama.cpp#18799)
    "CUDA Exception: Warp Misaligned Address",
    'Thread 1 "vectorAdd" received signal CUDA_EXCEPTION_14, Warp Illegal Address.',
    # the same signal in Nsight Eclipse Edition's debug view (corpus/holdout93 h93c-cufhe-managed-memory-cc50)
    "Thread [1] 14501 [core: 2] (Suspended : Signal : CUDA_EXCEPTION_15:Invalid Managed Memory Access)",
]

HEALTHY_LOOK_ALIKES = [
    # source lines that quote the macros (a build log, a grep, a diff)
    "    GGML_ASSERT(ne00 % ggml_blck_size(src0->type) == 0);",
    '#define GGML_ASSERT(x) if (!(x)) GGML_ABORT("GGML_ASSERT(%s) failed", #x)',
    "#define GGML_ASSERT(x) \\",
    # a sentence that only mentions aborting
    "Aborting early is disabled; pass --abort-on-error to stop at the first failure",
    "--abort-on-error      abort the run at the first mismatch",
]


@pytest.mark.parametrize("line", ASSERT_AND_ABORT_LINES)
def test_assertions_aborts_and_exceptions_are_failure_lines(line: str) -> None:
    assert is_failure_line(line), line
    assert failure_lines(line + "\n") == [(1, line)]
    assert has_failure(collect(line + "\n"))


@pytest.mark.parametrize("line", HEALTHY_LOOK_ALIKES)
def test_quoted_macros_and_mentions_stay_healthy(line: str) -> None:
    assert not is_failure_line(line), line
    assert not has_failure(collect(line + "\n")), line


@pytest.mark.parametrize(
    ("line", "error"),
    [
        # cuda-gdb's manual, exception codes: each one is the fault the runtime reports as this error
        ("CUDA Exception: Warp Misaligned Address", "cudaErrorMisalignedAddress"),
        ("CUDA Exception: Lane Misaligned Address", "cudaErrorMisalignedAddress"),
        ('Thread 1 "a.out" received signal CUDA_EXCEPTION_14, Warp Illegal Address.', "cudaErrorIllegalAddress"),
        (
            "Thread [1] 2210 [core: 0] (Suspended : Signal : CUDA_EXCEPTION_14:Warp Illegal Address)",
            "cudaErrorIllegalAddress",
        ),
        ("CUDA Exception: Warp Out-of-range Address", "cudaErrorIllegalAddress"),
        ("CUDA Exception: Device Illegal Address", "cudaErrorIllegalAddress"),
        ("CUDA Exception: Warp Illegal Instruction", "cudaErrorIllegalInstruction"),
        ("CUDA Exception: Warp Invalid PC", "cudaErrorInvalidPc"),
        ("CUDA Exception: Warp Hardware Stack Overflow", "cudaErrorHardwareStackError"),
        ("CUDA Exception: Warp Assert", "cudaErrorAssert"),
    ],
)
def test_cuda_gdb_exceptions_are_the_matching_cuda_errors(line: str, error: str) -> None:
    facts = parse(line)
    assert facts is not None
    assert (facts.error, facts.form) == (error, "cuda-gdb")


def test_an_unknown_cuda_gdb_exception_name_is_no_cuda_error() -> None:
    assert parse("CUDA Exception: Something New") is None


@pytest.mark.parametrize(
    "text",
    [
        case("holdout8/issues.yaml", "llamacpp-q8-kv-cache-head-dim-100-assert"),
        # the same contract in glibc's assert format (ggml.c ggml_row_size) and in today's GGML_ASSERT format
        # (the condition of ggml-metal-ops.cpp's copy)
        "main: ggml.c:1180: ggml_row_size: Assertion `ne % ggml_blck_size(type) == 0' failed.\nAborted (core dumped)",
        "ggml/src/ggml-metal/ggml-metal-ops.cpp:1520: GGML_ASSERT(ne10 % ggml_blck_size(op->src[1]->type) == 0) failed",
    ],
)
def test_an_assert_that_a_size_is_whole_blocks_is_that_assumption(text: str) -> None:
    assert diagnose(text) == ("runtime-assumption", "shape-not-multiple-of-block")


@pytest.mark.parametrize(
    "text",
    [
        case("holdout8/issues.yaml", "llamacpp-dsv4-transposed-quantized-v-cont-assert"),
        "ggml/src/ggml-cuda/argsort.cu:98: GGML_ASSERT(ggml_is_contiguous(src0)) failed",
        # c10/util/Exception.h, TORCH_CHECK(q.is_contiguous()) without a message
        "RuntimeError: Expected q.is_contiguous() to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)",
    ],
)
def test_an_assert_that_the_input_is_contiguous_is_that_assumption(text: str) -> None:
    assert diagnose(text) == ("runtime-assumption", "noncontiguous-input")


def test_an_assert_on_another_condition_is_not_read_as_either_contract() -> None:
    # corpus/holdout8 ik-llamacpp-mmvq-quantized-k-cache-assert: a shape-consistency assert decides nothing
    text = case("holdout8/issues.yaml", "ik-llamacpp-mmvq-quantized-k-cache-assert")
    assert diagnose(text)[1] not in ("shape-not-multiple-of-block", "noncontiguous-input")


@pytest.mark.parametrize(
    "text",
    [
        case("holdout8/issues.yaml", "cutlass-example-sm120-without-a-suffix"),
        case("holdout8/issues.yaml", "te-cutlass-grouped-gemm-not-built-sm90a"),
        # CuTe's atom-level guard, include/cute/arch/mma_sm90_gmma.hpp (CUTE_INVALID_CONTROL_PATH)
        "Attempting to use MMA_64x8x16_F16F16F16_SS without CUTE_ARCH_MMA_SM90A_ENABLED",
    ],
)
def test_cutlass_arch_conditional_guard_is_a_build_without_the_arch_target(text: str) -> None:
    assert diagnose(text) == ("environment", "no-kernel-image-for-arch")
