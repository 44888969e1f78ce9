"""Logs whose own words decide the owner, read as the family of messages they belong to.

Each family is tested on the log of a development case (corpus/holdout9, a public report: the thread named in
the case's ``source``) and on other wordings of the same family from the tools' own sources (their provenance
is in diagnose/data/catalogue/ and the rules' examples), with near misses that must not be read as it."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_logs import classify_text, corpus_log, decided

from diagnose.collectors import collect
from diagnose.report import next_check
from diagnose.unmatched import hint_for

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _case(case_id: str) -> str:
    return corpus_log("holdout9", case_id)


# --- 1. a dispatch that has no kernel for a value of a size parameter ----------------------------------------


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        # holdout9 sglang-flashinfer-merge-states-head-dim-106 (sgl-project/sglang#24714): FlashInfer's DISPATCH_HEAD_DIM
        (_case("sglang-flashinfer-merge-states-head-dim-106"), "head_dim", "106"),
        # FlashInfer include/flashinfer/utils.cuh, DISPATCH_GQA_GROUP_SIZE, value filled in
        ("RuntimeError: Unsupported group_size: 5\n", "group_size", "5"),
        # FlashInfer include/flashinfer/utils.cuh, DISPATCH_ROPE_DIM, value filled in
        ("Unsupported ROPE_DIM: 48. Supported values: 16, 32, 64, 128, 256 in DISPATCH_ROPE_DIM\n", "ROPE_DIM", "48"),
        # vLLM csrc/attention/attention_kernels.cu: TORCH_CHECK(false, "Unsupported head size: ", head_size)
        ("RuntimeError: Unsupported head size: 106\n", "head size", "106"),
        # vLLM 0.1.x vllm/model_executor/layers/attention.py, as quoted in vllm-project/vllm#336
        (
            "ValueError: head_size (100) is not supported. Supported head sizes: [64, 80, 96, 128].\n",
            "head_size",
            "100",
        ),
        # flash-attention hopper stub for a head dim without an sm_120 kernel
        ("RuntimeError: SM120 FP8 forward with head_dim=64 is not supported\n", "head_dim", "64"),
    ],
)
def test_a_dispatch_refusing_a_size_value_is_unsupported_shape(text: str, subject: str, value: str) -> None:
    report = classify_text(text)
    assert decided(text) == ("runtime-assumption", "shape-unsupported", "concept-unsupported-parameter-value")
    facts = dict(report.diagnosis.best.facts) if report.diagnosis and report.diagnosis.best else {}
    assert facts.get("concept_subject") == subject and facts.get("concept_unsupported") == value


@pytest.mark.parametrize(
    "text",
    [
        # a dtype in the same form: the dtype rule's, not a shape
        "RuntimeError: Unsupported dtype: BFloat16\n",
        # CPython's TypeError wording: no dispatch
        "TypeError: unsupported operand type(s) for +: 'int' and 'str'\n",
        # a version or an arch value: other owners
        "ValueError: Unsupported CUDA version: 10\n",
        "ValueError: Unsupported compute capability: 75\n",
    ],
)
def test_other_unsupported_values_are_not_read_as_a_size_dispatch(text: str) -> None:
    assert decided(text)[2] != "concept-unsupported-parameter-value"


@pytest.mark.parametrize(
    "text",
    [
        # vLLM 0.4's attention selector logs the reason at INFO and takes another backend (constructed in its form)
        "INFO 05-01 10:00:00 selector.py:50] Cannot use FlashAttention backend: Unsupported head size: 80. "
        "Using XFormers backend.\nINFO 05-01 10:00:05 Avg prompt throughput: 12.0 tokens/s\n",
        # a warning that names the fallback it takes (constructed)
        "WARNING: Unsupported head_dim: 72, falling back to the math kernel\nstep 1 loss 0.3\n",
    ],
)
def test_a_refusal_the_program_goes_around_is_no_failure(text: str) -> None:
    assert classify_text(text).category == "no-failure"


def test_the_dtype_form_goes_to_the_dtype_rule() -> None:
    assert decided("RuntimeError: Unsupported dtype: BFloat16\n")[:2] == ("runtime-assumption", "dtype-unexpected")


# --- 2. CUTLASS's own status strings (cutlassGetStatusString) ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # holdout9 cutlass-gemm-bias-relu-misaligned-operand (NVIDIA/cutlass#506), examples/common/helper.h's CUTLASS_CHECK
        (
            _case("cutlass-gemm-bias-relu-misaligned-operand"),
            ("runtime-assumption", "shape-not-multiple-of-block", "cutlass-status-misaligned-operand"),
        ),
        # the enumerator as code that names the status prints it (include/cutlass/cutlass.h)
        (
            "can_implement() returned cutlass::Status::kErrorMisalignedOperand\n",
            ("runtime-assumption", "shape-not-multiple-of-block", "cutlass-status-misaligned-operand"),
        ),
        # the other statuses of include/cutlass/cutlass.h through the same CUTLASS_CHECK wording
        (
            "Got cutlass error: Error Invalid Problem at: 310\n",
            ("runtime-assumption", "shape-unsupported", "cutlass-status-invalid-problem"),
        ),
        (
            "Got cutlass error: Error Architecture Mismatch at: 451\n",
            ("environment", "no-kernel-image-for-arch", "cutlass-status-arch-mismatch"),
        ),
        (
            "Got cutlass error: Error Insufficient Driver at: 88\n",
            ("environment", "driver-too-old", "cutlass-status-insufficient-driver"),
        ),
        (
            "Got cutlass error: Error Workspace Null at: 77\n",
            ("kernel-logic", "api-misuse", "cutlass-status-workspace-null"),
        ),
    ],
)
def test_a_cutlass_status_decides_its_owner(text: str, answer: tuple[str, str, str]) -> None:
    assert decided(text) == answer


def test_cutlass_internal_error_abstains_with_a_cuda_check_not_a_wheel_check() -> None:
    report = classify_text("Got cutlass error: Error Internal at: 192\n")
    assert report.category == "unknown"
    assert report.diagnosis is not None and report.diagnosis.rule is not None
    assert report.diagnosis.rule.startswith("cutlass-status-internal")
    check = next_check(report) or ""
    assert "cudaGetLastError" in check and "pip" not in check


def test_the_generic_words_need_cutlass_on_the_line() -> None:
    # "Error Not Supported" / "Error Internal" alone are too common to be CUTLASS's
    assert decided("RuntimeError: Error Not Supported\n")[2] != "cutlass-status-not-supported"
    assert decided("Got cutlass error: Error Not Supported at: 120\n")[2] == "cutlass-status-not-supported"


# --- 3. an argument check on a stride: a contract, never a printed result ------------------------------------


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # holdout9 flash-attn-v1-q-stride-not-contiguous (Dao-AILab/flash-attention#265): TORCH_CHECK(q.stride(-1) == 1)
        (_case("flash-attn-v1-q-stride-not-contiguous"), "assert-input-contiguous"),
        # the same check on the last dimension written with dim()
        ("RuntimeError: Expected x.stride(x.dim() - 1) == 1 to be true, but got false.\n", "assert-input-contiguous"),
        # flash-attn 2.x csrc/flash_attn/flash_api.cpp (and vLLM's copy): the check with a message
        ("RuntimeError: query tensor must have contiguous last dimension\n", "concept-stated-contract-broken"),
        # torch 2.13.0 libtorch_cpu.so: Tensor.view(dtype) on a strided last dimension
        (
            "RuntimeError: self.stride(-1) must be 1 to view Float as Byte (different element sizes), but got 2\n",
            "concept-stated-contract-broken",
        ),
        # torch 2.13.0 libtorch_cpu.so: scaled_dot_product_attention's check
        (
            "RuntimeError: All fused kernels require the last dimension of the input to have stride 1. "
            "Got Query.stride(-1): 2, Key.stride(-1): 2, Value.stride(-1): 2 instead.\n",
            "concept-stated-contract-broken",
        ),
    ],
)
def test_a_stride_check_is_a_noncontiguous_input(text: str, rule: str) -> None:
    assert decided(text) == ("runtime-assumption", "noncontiguous-input", rule)


def test_a_failed_torch_check_without_a_family_is_an_argument_check_not_a_wrong_result() -> None:
    # c10/util/Exception.h's wording for a TORCH_CHECK without a message, on a size condition no family reads
    text = "RuntimeError: Expected q.size(0) == k.size(0) to be true, but got false.\n"
    hint = hint_for(collect(text))
    assert hint is not None and hint.kind == "argument-check"
    assert hint.candidates[0].category == "runtime-assumption"
    assert "reference" not in hint.check and "stride" in hint.check


# --- 4. an MLIR pass failing inside a compiler ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # holdout9 triton-proton-scratch-pass-failure-fixed-newer-triton (triton-lang/triton#8087): the issue title
        _case("triton-proton-scratch-pass-failure-fixed-newer-triton"),
        # MLIR's PassCrashRecovery.cpp wording, as Triton 3.x prints it (both strings are in triton 3.7.1's libtriton.so)
        "/src/kernel.py:22:0: error: Failures have been detected while processing an MLIR pass pipeline\n"
        "/src/kernel.py:22:0: note: Pipeline failed while executing [`ConvertTritonGPUToLLVM` on 'builtin.module' "
        "operation]: reproducer generated at `std::errs, please share the reproducer above with Triton project.`\n"
        "RuntimeError: PassManager::run failed\n",
    ],
)
def test_a_failed_mlir_pass_is_a_compiler_bug(text: str) -> None:
    assert decided(text) == ("environment", "compiler-bug", "mlir-pass-pipeline-failed")


def test_a_users_type_error_before_the_pass_note_stays_the_kernels() -> None:
    # the op verifier's error on the user's pointer arithmetic (corpus/public/real-dev.yaml triton-add-two-pointers,
    # triton-lang/triton#1774), with the pass manager's note MLIR adds when a reproducer is on (constructed from
    # the two wordings)
    text = (
        "error: 'tt.addptr' op operand #1 must be integer or tensor of integer values, but got '!tt.ptr<f32>'\n"
        "note: Pipeline failed while executing [`TritonRewriteTensorPointer` on 'builtin.module' operation]: "
        "reproducer generated at `/tmp/r.mlir`\n"
        "RuntimeError: PassManager::run failed\n"
    )
    assert decided(text)[0] == "kernel-logic"


def test_a_triton_compilation_error_with_its_source_position_stays_the_kernels() -> None:
    # a real Triton 3.7.1 front-end error (tests/fixtures/triton, produced by the capture script it names)
    text = (FIXTURES / "triton" / "compile-undefined-name.log").read_text()
    assert decided(text)[0] == "kernel-logic"


# --- 5. GPUCompiler's KernelError: the Julia kernel body ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # holdout9 cudanative-kernel-throws-union-return (JuliaGPU/CUDAnative.jl#264)
        _case("cudanative-kernel-throws-union-return"),
        # GPUCompiler.jl src/validation.jl, check_invocation (error.jl's showerror prints "KernelError: <message>")
        "ERROR: GPU compilation of MethodInstance for kernel(::CuDeviceVector{Float32, 1}, ::Vector{Float32}) failed\n"
        "KernelError: passing non-bitstype argument\n\n"
        "Argument 3 to your kernel function is of type Vector{Float32}, which is not a bitstype:\n",
        # GPUCompiler.jl src/validation.jl, check_method
        "KernelError: method captures typevar 'T' (you probably use an unbound type variable)\n",
    ],
)
def test_a_julia_kernel_error_is_the_kernel_body_with_julia_advice(text: str) -> None:
    report = classify_text(text)
    assert decided(text) == ("kernel-logic", "compile-source-error", "gpucompiler-kernel-error")
    best = report.diagnosis.best if report.diagnosis else None
    assert best is not None and "@device_code_warntype" in best.fix and "nvcc" not in best.fix


def test_invalid_ir_stays_language_misuse() -> None:
    # GPUCompiler.jl src/validation.jl, InvalidIRError's showerror and DYNAMIC_CALL
    text = (
        "ERROR: InvalidIRError: compiling MethodInstance for kernel(::CuDeviceVector{Float32, 1}) resulted in "
        "invalid LLVM IR\nReason: unsupported dynamic function invocation (call to print_to_string(xs...))\n"
    )
    assert decided(text) == ("kernel-logic", "language-misuse", "gpucompiler-invalid-ir")


# --- 6. a library a warning said did not load, then an error from that library ------------------------------

_DSO = (
    "2021-03-01 10:00:00.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
    "dynamic library '{lib}'; dlerror: {lib}: cannot open shared object file: No such file or directory\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # holdout9 jax-qr-cusolver-internal-error-wrong-libcusolver (jax-ml/jax#8289)
        _case("jax-qr-cusolver-internal-error-wrong-libcusolver"),
        # TensorFlow 2.4's wordings: dso_loader.cc's warning, cuda_blas.cc's "failed to create cublas handle: %s"
        _DSO.format(lib="libcublas.so.11")
        + "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED\n",
    ],
)
def test_the_failed_load_decides_over_the_later_status(text: str) -> None:
    assert decided(text) == ("environment", "library-missing", "env-library-not-loaded-then-its-error")


def test_a_warned_library_never_named_again_decides_nothing() -> None:
    # a CPU-only TensorFlow warns about every GPU library; the later error is another library's
    text = _DSO.format(lib="libnvinfer.so.7") + "XlaRuntimeError: cuSolver internal error\n"
    assert decided(text)[2] != "env-library-not-loaded-then-its-error"
    assert "missing-library-then-its-error" not in (collect(text).env.issues if collect(text).env else ())
