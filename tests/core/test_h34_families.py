"""Families learned from the misses of the thirty-fourth set: the stream-ordered allocator on a device without memory
pools (runtime-assumption, in the runtime's, the driver's and JAX's wording), a library's version warning that decides
only beside a failure of the component it names (Paddle's "compiled with CUDNN 7.6, but CUDNN version in your machine
is 7.3"), and the abstentions whose check must lead with the deciding fact: the source's arch guard around a
redefined arch-gated overload, the build's architectures for "invalid device symbol" and CUBLAS_STATUS_NOT_INITIALIZED.

Fixture lines are the logs of labelled dev cases (corpus id given), output captured here (the fixture named), or a
tool's own message format filled in (said where).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

from diagnose.collectors import compile_cause, compiler, cuda_errors
from diagnose.report import next_check

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests/fixtures/compiler"

FINUFFT = corpus_log("holdout34", "h34a-finufft-mallocasync-unsupported-940mx")
JAX_GTSV2 = corpus_log("holdout34", "h34a-jax-gtsv2-mallocasync-quadro-m4000")
PADDLE = corpus_log("holdout34", "h34b-paddle-cudnn-runtime-older-than-build")
SOFTRAS = corpus_log("holdout34", "h34a-softras-atomicadd-double-redefined")
KAWPOW = corpus_log("holdout34", "h34a-kawpowminer-invalid-device-symbol-3090")
PWP3D = corpus_log("holdout34", "h34a-pwp3d-invalid-device-symbol-750ti")
FASTER_TRANSFORMER = corpus_log("holdout34", "h34a-fastertransformer-cublas-not-init-sm86")
GATED_DOUBLE = (FIXTURES / "nvcc-redefines-gated-atomicadd-double.log").read_text()
FLOAT2_SAME_TYPE = (FIXTURES / "nvcc-redefines-toolkit-atomicadd-same-type.log").read_text()
#: Paddle's warning as its catalogue sample prints it (diagnose/data/catalogue/paddle.yaml), with nothing failing after
PADDLE_WARNING = (
    "W1114 22:57:33.949204    32 device_context.h:397] WARNING: device: 0. The installed Paddle is compiled with "
    "CUDNN 8.1, but CUDNN version in your machine is 8.0, which may cause serious incompatible bug. Please recompile "
    "or reinstall Paddle with compatible CUDNN version.\n"
)

# --- the stream-ordered allocator on a device without memory pools -------------------------------------------------


def test_the_samples_check_keeps_the_call_of_a_wrapped_statement() -> None:
    facts = cuda_errors.parse(FINUFFT)
    assert facts is not None
    assert (facts.error, facts.api_call) == ("cudaErrorNotSupported", "cudaMallocAsync")


@pytest.mark.parametrize("text", [FINUFFT, JAX_GTSV2])
def test_a_pool_call_refused_as_unsupported_is_the_devices(text: str) -> None:
    assert decided(text) == (
        "runtime-assumption",
        "stream-ordered-alloc-unsupported-on-device",
        "cuda-memory-pool-unsupported-on-device",
    )


def test_the_driver_apis_pool_calls_in_numbas_wording() -> None:
    # numba's CudaAPIError format ("[%d] Call to %s results in %s", numba/cuda/cudadrv/driver.py) with a pool call
    text = "numba.cuda.cudadrv.driver.CudaAPIError: [801] Call to cuMemAllocAsync results in CUDA_ERROR_NOT_SUPPORTED"
    assert decided(text)[2] == "cuda-memory-pool-unsupported-on-device"


def test_not_supported_from_another_call_is_not_the_pools() -> None:
    # the CUDA samples' check format (helper_cuda.h) around a managed-memory call: not a memory-pool entry point
    text = 'CUDA error at a.cu:7 code=801(cudaErrorNotSupported) "cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, 0)"'
    assert verdict(text)[2] != "cuda-memory-pool-unsupported-on-device"


def test_the_jax_fix_speaks_of_jaxlib_not_cuda_malloc() -> None:
    fix = str(classify_text(JAX_GTSV2).to_dict()["fix"])
    assert "jaxlib" in fix and "cudaDeviceGetAttribute" not in fix


# --- a version warning decides only beside a failure of its component ------------------------------------------------


def test_a_cudnn_status_after_paddles_cudnn_warning_is_the_mismatch() -> None:
    assert decided(PADDLE)[:2] == ("environment", "version-skew")
    what = str(classify_text(PADDLE).to_dict()["what"])
    assert "(CUDNN)" in what and "(7.6)" in what and "(7.3)" in what and "only warned" in what


def test_the_warning_alone_is_no_failure() -> None:
    assert verdict(PADDLE_WARNING)[0] == "no-failure"


def test_the_warning_beside_another_parts_failure_does_not_decide_it() -> None:
    text = PADDLE_WARNING + "RuntimeError: CUDA error: out of memory\n"
    assert verdict(text)[2] != "concept-component-too-old"


# --- abstentions whose check leads with the deciding fact -----------------------------------------------------------


def test_a_redefined_gated_overload_every_toolkit_declares() -> None:
    assert compile_cause.redefined_gated_overload(GATED_DOUBLE.splitlines()[0]) == ("sm_60", True)
    facts = compiler.parse(SOFTRAS)
    assert facts is not None
    assert (facts.toolkit_clash_from_arch, facts.toolkit_clash_in_every_toolkit) == ("sm_60", True)


@pytest.mark.parametrize("text", [SOFTRAS, GATED_DOUBLE])
def test_the_sources_guard_is_the_first_candidate_and_the_check(text: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown" and report.diagnosis is not None
    assert [f.category for f in report.diagnosis.findings][:2] == ["kernel-logic", "environment"]
    check = next_check(report) or ""
    assert check.startswith("The source's guard decides") and "#if" in check


def test_an_overload_a_later_toolkit_added_keeps_its_answer() -> None:
    facts = compiler.parse(FLOAT2_SAME_TYPE)
    assert facts is not None and not facts.toolkit_clash_in_every_toolkit
    assert verdict(FLOAT2_SAME_TYPE)[2] != "nvcc-redefines-arch-gated-overload"


@pytest.mark.parametrize("text", [KAWPOW, PWP3D])
def test_invalid_device_symbol_abstains_with_the_arch_check_first(text: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown" and report.diagnosis is not None
    assert report.diagnosis.findings[0].category == "environment"
    check = next_check(report) or ""
    assert check.index("cuobjdump --list-elf") < check.index("runtime-assumption")
    assert "-rdc=true" in check and 'cudaMemcpyToSymbol("name"' in check


def test_cublas_not_initialized_abstains_with_the_arch_check_first() -> None:
    report = classify_text(FASTER_TRANSFORMER)
    assert report.status == "unknown" and report.diagnosis is not None
    assert report.diagnosis.findings[0].category == "environment"
    check = next_check(report) or ""
    assert check.index("compute_cap") < check.index("Free memory")


def test_rmms_refusal_abstains_between_the_driver_and_the_device() -> None:
    # RMM_EXPECTS's format ("RMM failure at: " FILE ":" LINE ": " reason, include/rmm/detail/error.hpp) with the
    # reason of cuda_async_memory_resource.hpp
    text = (
        "RMM failure at: /opt/conda/include/rmm/mr/device/cuda_async_memory_resource.hpp:89: "
        "cudaMallocAsync not supported with this CUDA driver/runtime version\n"
    )
    report = classify_text(text)
    assert report.status == "unknown" and report.diagnosis is not None
    assert [f.category for f in report.diagnosis.findings][:2] == ["environment", "runtime-assumption"]
    assert "cudaDevAttrMemoryPoolsSupported" in (next_check(report) or "")


def test_a_librarys_fallback_warning_stays_silent() -> None:
    # cufinufft's own warning when it falls back to cudaMalloc (finufft src/cuda, after PR #468)
    text = (
        "[cufinufft] Warning: cudaMallocAsync not supported on this device. Use of CUDA streams may not perform "
        "optimally.\n"
    )
    assert verdict(text)[0] == "no-failure"
