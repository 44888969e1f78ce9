"""Families learned from the misses of the seventeenth set's part b (CuPy, JAX/Pallas, TensorRT, CUDA C++ builds):
each decided from what decides it, or left undecided with the candidates and the check that decides.

Fixture lines are the logs of labelled dev cases (corpus id given) or lines of other public reports of the same
family (the issue named beside them), quoted verbatim.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

from diagnose.collectors import cuda_errors
from diagnose.failure_lines import failure_lines
from diagnose.report import next_check

# --- TensorRT: an input shape outside the engine's optimization profile, in the parameter-check wordings ---------

VOLKSDEP = corpus_log("holdout17", "h17b-volksdep-trt-profile-dims")  # TensorRT 7.1, setBindingDimensions
# TensorRT 8.x validateInputBindings (NVIDIA/TensorRT#2739) and 8.5+ setInputShape (NVIDIA/TensorRT-LLM#1332)
TRT8_MAX = (
    "[08/14/2023-18:08:38] [E] [TRT] 3: [executionContext.cpp::nvinfer1::rt::ExecutionContext::validateInputBindings"
    "::1831] Error Code 3: API Usage Error (Parameter check failed at: executionContext.cpp::nvinfer1::rt::"
    "ExecutionContext::validateInputBindings::1831, condition: profileMaxDims.d[i] >= dimensions.d[i]. Supplied "
    "binding dimension [10,3,128,64] for bindings[0] exceed min ~ max range at index 0, maximum dimension in profile "
    "is 1, minimum dimension in profile is 1, but supplied dimension is 10.\n)\n"
)
TRT_LLM = (
    "[TensorRT-LLM][ERROR] 3: [executionContext.cpp::setInputShape::2309] Error Code 3: API Usage Error (Parameter "
    "check failed at: runtime/api/executionContext.cpp::setInputShape::2309, condition: satisfyProfile Runtime "
    "dimension does not satisfy any optimization profile.)\n"
)


@pytest.mark.parametrize("text", [VOLKSDEP, TRT8_MAX, TRT_LLM])
def test_tensorrt_profile_parameter_checks_are_shapes_outside_the_engine(text: str) -> None:
    assert decided(text) == (
        "runtime-assumption",
        "shape-outside-engine-profile",
        "tensorrt-input-outside-engine-profile",
    )


def test_other_tensorrt_parameter_checks_are_not_profile_misses() -> None:
    # NVIDIA/TensorRT#536: setBindingDimensions called on an output binding, not a shape outside the profile
    text = (
        "[TensorRT] ERROR: Parameter check failed at: engine.cpp::setBindingDimensions::938, condition: "
        "mEngine.bindingIsInput(bindingIndex)\n"
    )
    assert verdict(text)[2] != "tensorrt-input-outside-engine-profile"


# --- nvcc: no overload of an atomic matches, with and without the argument types ---------------------------------

GADGETRON = corpus_log("holdout17", "h17b-gadgetron-atomicadd-double-old-arch")
TYPED_DOUBLE = (
    'quant_cuda_kernel.cu(149): error: no instance of overloaded function "atomicAdd" matches the argument list\n'
    "            argument types are: (double *, double)\n"
)  # qwopqwop200/GPTQ-for-LLaMa#58


def test_an_atomic_without_its_argument_types_abstains_with_the_arch_first() -> None:
    report = classify_text(GADGETRON)
    assert report.category == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings[0].rule == "nvcc-atomic-overload-untyped-as-runtime-assumption"
    assert [f.category for f in d.findings[:2]] == ["runtime-assumption", "kernel-logic"]
    assert "argument types are:" in (next_check(report) or "")


def test_the_argument_types_still_decide() -> None:
    assert decided(TYPED_DOUBLE)[:2] == ("runtime-assumption", "arch-feature-unavailable")
    # corpus/captured: an extra argument fits no overload on any GPU, the source's own error
    wrong_arity = (
        'reduce.cu(11): error: no instance of overloaded function "atomicAdd" matches the argument list\n'
        "            argument types are: (float *, float, int)\n"
    )
    assert decided(wrong_arity)[:2] == ("kernel-logic", "compile-source-error")


# --- failure lines: a traceback pasted as its frames alone, a compile said not to work ---------------------------

PALLAS_FRAMES = corpus_log("holdout17", "h17b-pallas-triton-bf16-div-floordiv")
RAWMODULE_TITLE = corpus_log("holdout17", "h17b-cupy-rawmodule-shfl-typo")


@pytest.mark.parametrize("text", [PALLAS_FRAMES, RAWMODULE_TITLE])
def test_a_failure_is_never_no_failure(text: str) -> None:
    assert failure_lines(text)
    assert classify_text(text).status != "no-failure"


@pytest.mark.parametrize(
    "text",
    [
        # source lines that name a frame or a compile without reporting one (torch 2.13's own sources)
        """        f'File "{filename}", line {file_lineno}:\\n'\n""",
        "        # We can't compile-time auto-tune this because\n",
    ],
)
def test_healthy_mentions_stay_silent(text: str) -> None:
    assert not failure_lines(text)


# --- Pallas: a primitive the Triton lowering of a newer jax implements vs one it still cannot express -------------

PALLAS_SIGN = corpus_log("holdout17", "h17b-pallas-gpu-sign-unimplemented")  # jax-ml/jax#17317
PALLAS_DYNAMIC_SLICE = corpus_log("holdout3", "pallas-gpu-dynamic-slice-unimplemented")  # jax-ml/jax#24145


def test_an_elementwise_primitive_a_newer_jax_lowers_is_the_jax_version() -> None:
    assert decided(PALLAS_SIGN) == ("environment", "version-skew", "concept-pallas-primitive-lowered-by-newer-jax")


def test_a_primitive_the_backend_still_lacks_stays_the_kernels() -> None:
    assert decided(PALLAS_DYNAMIC_SLICE)[:2] == ("kernel-logic", "language-misuse")


# --- jax: arguments against a placement fixed inside the computation (or its mesh context) ------------------------

SCVI = corpus_log("holdout17", "h17b-scvi-jax-jit-pjit-incompatible-devices")
# marin-community/marin#1727, the message wrapped over lines by the report
CONTEXT_MESH = (
    "ValueError: Received incompatible devices for jitted computation.\n"
    "Got argument key of _randint with shape key<fry>[] and device ids [0, 1]\n"
    "on platform GPU and jit's context mesh with device ids [0] on platform CPU\n"
)


@pytest.mark.parametrize("text", [SCVI, CONTEXT_MESH])
def test_a_placement_inside_the_computation_abstains(text: str) -> None:
    report = classify_text(text)
    assert report.category == "unknown"
    d = report.diagnosis
    assert d is not None
    assert {f.category for f in d.findings[:2]} == {"runtime-assumption", "environment"}
    assert "inside jit" in (next_check(report) or "")


def test_two_arguments_on_different_devices_stay_the_callers() -> None:
    # jax/_src/stages.py's message for two arguments (the catalogue's sample, jax 0.10.2)
    text = (
        "ValueError: Received incompatible devices for jitted computation. Got argument x of f with shape "
        "float32[3] and device ids [0] on platform GPU and argument y of f with shape float32[3] and device ids [1] "
        "on platform GPU\n"
    )
    # the rule leads (answering, or under the threshold while its first-sight record of one wrong answer, on the
    # in-computation wording that is now a family of its own, holds its confidence down)
    category, mode, _ = decided(text)
    report = classify_text(text)
    assert report.diagnosis is not None and report.diagnosis.findings
    top = report.diagnosis.findings[0]
    assert (top.category, top.failure_mode) == ("runtime-assumption", "device-mismatch")
    assert category in ("runtime-assumption", "unknown") and mode in ("device-mismatch", "ambiguous")


# --- CuPy: NVRTCError raised by compileProgram, its message cut from the paste -------------------------------------

CUPY_NVRTC = corpus_log("holdout17", "h17b-cupy-elementwise-printf-newline")  # cupy/cupy#7270


def test_a_cut_nvrtc_compile_error_abstains_with_the_source_first() -> None:
    report = classify_text(CUPY_NVRTC)
    assert report.category == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings[0].rule == "nvrtc-compilation-failed-as-kernel-logic"
    assert "nvrtcGetProgramLog" in (next_check(report) or "")


# --- CUDA: cudaGetErrorString's text after "error code", the check NVIDIA's cuda-samples print ---------------------

BEND = corpus_log("holdout17", "h17b-bend-cuda-1080ti-launch-invalid")  # HVM's runtime: "Error code: %s."


def test_a_launch_reported_with_its_error_code_text() -> None:
    assert decided(BEND)[:2] == ("runtime-assumption", "grid-dim-limit")


@pytest.mark.parametrize(
    ("line", "name"),
    [
        # Samples/0_Introduction/vectorAdd/vectorAdd.cu: fprintf(stderr, "Failed to ... (error code %s)!\n", cudaGetErrorString(err))
        ("Failed to allocate device vector A (error code out of memory)!", "cudaErrorMemoryAllocation"),
        ("Failed to launch vectorAdd kernel (error code invalid argument)!", "cudaErrorInvalidValue"),
        ("Error code: no error", None),  # cudaGetErrorString(cudaSuccess)
        ("process exited with error code 2", None),
    ],
)
def test_the_error_code_form(line: str, name: str | None) -> None:
    facts = cuda_errors.parse(line + "\n")
    assert (facts.error if facts else None) == name
