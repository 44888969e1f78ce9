"""Families learned from the misses of the twenty-first set's part b (CUDA.jl/GPUCompiler, TensorFlow, TensorRT,
Pallas on TPU, Warp, gpu-burn): each decided from what decides it, or left undecided with the candidates and the
check that decides.

Fixture lines are the logs of labelled dev cases (corpus id given) or lines of other public reports of the same
family (the issue named beside them), quoted verbatim.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

from diagnose.collectors import collect
from diagnose.report import next_check

# --- GPUCompiler's InvalidIRError: where the offending call sits decides ------------------------------------------

BREEZE = corpus_log("holdout21", "h21b-breeze-gpucompiler111-boundserror-dynamic-call")  # NumericalEarth/Breeze.jl#695
CUARRAYS_246 = (  # JuliaGPU/CuArrays.jl#246: works on Julia 1.0, not on 1.1
    "Reason: unsupported call to the Julia runtime (call to jl_gc_pool_alloc)\n"
    "Stacktrace:\n"
    " [1] throw_boundserror at subarray.jl:43\n"
    " [2] checkbounds at abstractarray.jl:449\n"
    " [3] setindex! at subarray.jl:268\n"
)
GC_ONLY = corpus_log("holdout21", "h21b-cudajl-staticarray-julia110-gcframe")  # JuliaGPU/CUDA.jl#2313
PRINT_IN_KERNEL = corpus_log("holdout5", "cudajl-kernel-string-print-invalid-ir")  # JuliaGPU/CUDA.jl#1496
TRIXI = corpus_log("holdout11", "trixicuda-boundary-flux-dynamic-invocation")  # trixi-gpu/TrixiCUDA.jl#6


@pytest.mark.parametrize("text", [BREEZE, CUARRAYS_246])
def test_invalid_ir_in_the_bounds_error_path_is_the_package_release(text: str) -> None:
    assert decided(text) == (
        "environment",
        "compiler-version-regression",
        "gpucompiler-invalid-ir-in-bounds-error-path",
    )


def test_gc_frame_intrinsics_alone_abstain_with_both_owners_and_the_previous_release_check() -> None:
    report = classify_text(GC_ONLY)
    assert report.category == "unknown"
    assert report.diagnosis is not None
    owners = {f.category for f in report.diagnosis.findings}
    assert {"environment", "kernel-logic"} <= owners
    check = next_check(report) or ""
    assert "previous Julia minor release" in check


@pytest.mark.parametrize("text", [PRINT_IN_KERNEL, TRIXI])
def test_a_call_of_the_kernels_own_code_stays_the_kernels(text: str) -> None:
    assert decided(text)[:2] == ("kernel-logic", "language-misuse")


# --- TensorFlow 1.x's cuDNN compatibility-version check: a version skew in either direction -----------------------

TF_MODELS_3835 = corpus_log("holdout21", "h21b-tf-cudnn-runtime-vs-build-mismatch")  # loaded 7.5, built with 7.0


def test_tf1_cudnn_compatibility_version_mismatch_is_a_version_skew() -> None:
    assert decided(TF_MODELS_3835) == ("environment", "version-skew", "xla-cudnn-runtime-compatibility-version-differs")


# --- TensorRT's missing plugin creator: deserialising an engine is the loading process's setup --------------------

TRT_2835 = corpus_log("holdout21", "h21b-trt-plugin-creator-not-in-registry")  # NVIDIA/TensorRT#2835


def test_a_plugin_creator_missing_while_deserialising_is_the_plugin_library_not_loaded() -> None:
    assert decided(TRT_2835) == ("environment", "library-missing", "tensorrt-plugin-not-registered-at-deserialize")


def test_a_plugin_creator_missing_while_parsing_still_abstains() -> None:
    # the family's own sample (TensorRT 7.x-8.x ONNX parser, quoted in NVIDIA/TensorRT#795)
    assert verdict("[E] [TRT] 3: getPluginCreator could not find plugin: SplitToSequence version: 1\n")[1] == "unknown"


# --- Mosaic TPU's "Not implemented" layout errors: abstain, with the check on the failing operation's shape ----------

MOSAIC = corpus_log("holdout21", "h21b-pallas-mosaic-block-dim-4-not-8")  # jax-ml/jax#24415


def test_mosaic_layout_not_implemented_abstains_with_the_shape_check() -> None:
    report = classify_text(MOSAIC)
    assert report.category == "unknown"
    check = next_check(report) or ""
    assert "at location" in check and "nvidia" not in check.lower()


# --- a value past 2^31 printed beside its int32 wrap ---------------------------------------------------------------

WARP = corpus_log("holdout21", "h21b-warp-scalar-tid-extent-over-2-31")  # NVIDIA/warp#1799


def test_a_value_printed_beside_its_int32_wrap_is_an_int32_overflow() -> None:
    assert collect(WARP).log.int32_wrapped == "2147483649 -> -2147483647"
    assert decided(WARP) == ("runtime-assumption", "int32-index-overflow", "concept-int32-wrapped-value-printed")


def test_a_large_value_without_its_wrap_is_not_one() -> None:
    # JuliaGPU/CUDA.jl#1880: the conversion refused the value; nothing wrapped
    assert collect("ERROR: InexactError: trunc(Int32, 3211456640)\n").log.int32_wrapped is None


# --- a PTX JIT failure on a named Kepler or Fermi GPU ------------------------------------------------------------

GPU_BURN = corpus_log("holdout21", "h21b-gpuburn-kepler-compute50-ptx-jit")  # wilicc/gpu-burn#101


def test_a_ptx_jit_failure_on_a_kepler_gpu_is_a_build_that_does_not_target_it() -> None:
    assert decided(GPU_BURN) == ("environment", "no-kernel-image-for-arch", "cuda-ptx-jit-failed-on-pre-maxwell-gpu")


@pytest.mark.parametrize("gpu", ["NVIDIA GeForce GTX 750 Ti", "NVIDIA GeForce GTX TITAN X", "Quadro K2200"])
def test_a_maxwell_gpu_of_similar_name_is_not_taken_for_kepler(gpu: str) -> None:
    text = GPU_BURN.replace("NVIDIA GeForce GT 730", gpu)
    assert verdict(text)[2] != "cuda-ptx-jit-failed-on-pre-maxwell-gpu"


# --- the right result said not to come is a failure ----------------------------------------------------------------

STENCIL = corpus_log("holdout21", "h21b-stencil-reads-neighbors-past-ends")  # myurtoglu/cudaforengineers#5


def test_the_right_result_said_not_to_come_is_not_a_healthy_log() -> None:
    assert verdict(STENCIL)[0] != "no-failure"
    # the author's reply in myurtoglu/cudaforengineers#9: the right result came
    assert verdict("@myurtoglu yeah that's it .I get the right result.Thank you.\n")[0] == "no-failure"
