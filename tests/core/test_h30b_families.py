"""Families learned from the misses of the thirtieth set's part b (CUDA.jl, Warp's MathDx tiles, cuFFT's refused
parameter, PyTorch's numel overflow): each decided from what decides it, or left undecided with the candidates and
the check that decides.

Fixture lines are the logs of labelled dev cases (corpus id given), lines of other public reports of the same
family (the issue named beside them), or the tool's own message with its placeholders filled (the source named).
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided


def _found_by(text: str, rule_id: str) -> bool:
    """Whether ``rule_id`` is among the findings of the text's diagnosis (the answer or an alternative)."""
    report = classify_text(text)
    return report.diagnosis is not None and any(f.rule_id == rule_id for f in report.diagnosis.findings)


def _owners(text: str) -> set[str]:
    report = classify_text(text)
    assert report.category == "unknown"
    assert report.diagnosis is not None
    return {f.category for f in report.diagnosis.findings}


# --- CUDA.jl: a GPU the CUDA release in use no longer supports ----------------------------------------------------

CUDAJL_V100 = corpus_log("holdout30", "h30b-cudajl-v100-cuda13-driver")  # JuliaGPU/CUDA.jl#3079
# lib/cudadrv/state.jl of CUDA.jl 4.x-5.x (context(dev)), its @error with a K80's name and capability
CUDAJL_K80 = "Error: Your Tesla K80 GPU (compute capability 3.7) is not supported on CUDA 12+.\n"
CUDAJL_TOO_OLD = "Error: Your Quadro K600 GPU (compute capability 3.0) is not supported by CUDA.jl.\n"


@pytest.mark.parametrize("text", [CUDAJL_V100, CUDAJL_K80, CUDAJL_TOO_OLD])
def test_cudajl_gpu_dropped_by_the_cuda_release_is_the_environment(text: str) -> None:
    assert decided(text) == ("environment", "toolkit-dropped-arch", "cudajl-gpu-unsupported-by-cuda-release")


def test_cudajl_deprecation_warning_is_not_the_dropped_arch() -> None:
    # the same function's @warn for a deprecated (still supported) GPU
    text = "Warning: Your Tesla K80 GPU (compute capability 3.7) is deprecated on CUDA 11+.\n"
    assert not _found_by(text, "cudajl-gpu-unsupported-by-cuda-release")


# --- Warp: libmathdx could not build a tile solver, matmul or FFT -------------------------------------------------

WARP_602 = corpus_log("holdout30", "h30b-warp-tile-cholesky-570-exceeds-smem")  # NVIDIA/warp#602
WARP_911 = corpus_log("holdout30", "h30b-warp-cholesky-cuda-toolkit-too-old")  # NVIDIA/warp#911
# warp/native/warp.cu (check_cublasdx_result), its message filled in
WARP_CUBLASDX = "libmathdx cuBLASDx error: 3 on /build/warp/warp/native/warp.cu:3310\n"


@pytest.mark.parametrize("text", [WARP_602, WARP_911, WARP_CUBLASDX])
def test_libmathdx_errors_abstain_between_the_tile_size_and_the_toolkit(text: str) -> None:
    assert {"runtime-assumption", "environment"} <= _owners(text)


# --- cuFFT's CUFFT_INVALID_VALUE: a view cuFFT cannot take, or the code's arguments ------------------------------

CUPY_RFFTN = corpus_log("holdout30", "h30b-cupy-rfftn-view-not-16b-aligned")


# the same log without the reporter's own pointer checks (``x.data.ptr % 16``): nothing left decides the owner
CUPY_RFFTN_BARE = "\n".join(line for line in CUPY_RFFTN.splitlines() if "%" not in line) + "\n"


def test_cufft_invalid_value_lists_the_input_alignment_and_the_code() -> None:
    assert {"runtime-assumption", "kernel-logic"} <= _owners(CUPY_RFFTN_BARE)


def test_cufft_invalid_value_with_the_pointer_printed_off_16_bytes_is_the_input() -> None:
    assert decided(CUPY_RFFTN) == (
        "runtime-assumption",
        "misaligned-input",
        "concept-cufft-invalid-value-misaligned-pointer",
    )


# --- PyTorch's numel overflow: garbage sizes, most often from an extension built wrong ---------------------------

LUCID = corpus_log("holdout30", "h30b-luciddreamer-numel-overflow-rasterizer-build")


def test_numel_overflow_abstains_with_the_extension_build_first() -> None:
    report = classify_text(LUCID)
    assert report.category == "unknown"
    assert report.diagnosis is not None
    owners = [f.category for f in report.diagnosis.findings]
    assert owners[0] == "environment"
    assert {"kernel-logic", "runtime-assumption"} <= set(owners)


# --- MLX's CUDA backend: its own launch refused for a size its API accepts -----------------------------------------

MLX_3602 = corpus_log("holdout30", "h30b-mlx-allreduce-past-int-max")  # ml-explore/mlx#3602
# ml-explore/mlx#3666 (a binary op on a large non-contiguous array, grid y past 65,535)
MLX_3666 = "-> `RuntimeError: cudaGraphAddKernelNode(&node, graph_, NULL, 0, &params) failed: invalid argument`.\n"


@pytest.mark.parametrize("text", [MLX_3602, MLX_3666])
def test_mlx_own_launch_refused_is_mlx_launch_computation(text: str) -> None:
    assert decided(text) == ("kernel-logic", "invalid-launch-config", "mlx-cuda-own-launch-refused")


# --- one call printed eagerly and under jit, each result in a comment on the next line -----------------------------

XLA_BOOLEAN = corpus_log("holdout30", "h30b-xla-gpu-boolean-or-and-miscompile")  # reduced from jax-ml/jax#17003


def test_jit_and_eager_results_on_the_next_line_are_a_failure() -> None:
    report = classify_text(XLA_BOOLEAN)
    assert report.category != "no-failure"


def test_equal_jit_and_eager_results_on_the_next_line_stay_healthy() -> None:
    text = "print(less_equal_2D(x, y))\n# False\nprint(jax.jit(less_equal_2D)(x, y))\n# False\n"
    assert classify_text(text).category == "no-failure"


XLA_INT8 = corpus_log("holdout8", "xla-gpu-int8-compare-jit-wrong-result")


@pytest.mark.parametrize("text", [XLA_BOOLEAN, XLA_INT8])
def test_an_exact_result_that_changes_under_jax_jit_is_xla(text: str) -> None:
    assert decided(text) == ("environment", "compiler-miscompile", "numerics-jit-exact-result-differs-from-eager")


def test_a_float_result_that_changes_under_jit_is_not_decided_as_xla() -> None:
    # the same reproduction shape with floating-point results, which fusion may reorder
    text = "print(f(x))\n# 1.5\nprint(jax.jit(f)(x))\n# 3.25\n"
    assert not _found_by(text, "numerics-jit-exact-result-differs-from-eager")


# --- YAKL's FFT wrapper: a cuFFT call failed, its status not printed ----------------------------------------------

YAKL_72 = corpus_log("holdout30", "h30b-yakl-cufft-d2z-pool-misaligned")  # mrnorman/YAKL#72


def test_yakl_fft_check_abstains_between_the_array_alignment_and_the_call() -> None:
    assert {"runtime-assumption", "kernel-logic"} <= _owners(YAKL_72)
