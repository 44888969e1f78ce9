"""Families learned from the misses of the thirty-seventh set: TensorRT's statement that a tensor's volume is past
2^31 - 1 (runtime-assumption, with the element count of the dimensions it prints), and a library's check that states
the minimum compute capability it needs as an error ("compute capability 8.0 (Ampere) or higher is required",
"requires ... compute capability >= 10.0"), which says by itself that the device is below it.

Fixture lines are the logs of labelled dev cases (corpus id given), a catalogue message's sample (its source in the
catalogue), or output captured here (said where).
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

TRT_8_0 = corpus_log("holdout37", "h37b-trt-tensor-volume-over-int32")
KERNL = corpus_log("holdout37", "h37b-kernl-requires-ampere")

# --- TensorRT's tensor volume limit ---------------------------------------------------------------------------------


def test_trt_volume_past_int32_is_the_networks_size() -> None:
    category, mode, rule = decided(TRT_8_0)
    assert (category, mode, rule) == ("runtime-assumption", "int32-index-overflow", "tensorrt-tensor-volume-over-int32")


def test_trt_volume_explanation_names_the_element_count() -> None:
    d = classify_text(TRT_8_0).diagnosis
    assert d is not None and d.best is not None
    # 4 x 65536 x 65536, from the dimensions TensorRT prints
    assert "17,179,869,184 elements" in d.best.what


@pytest.mark.parametrize(
    "line",
    [
        # NVIDIA/TensorRT#3324 (TensorRT 8.6.1), the catalogue family's second sample
        "[Matrix Multiply]_output: tensor volume exceeds (2^31)-1, dimensions are [2,5,16384,16384])\n",
        # NVIDIA/TensorRT-LLM#2422 (TensorRT 10.x, symbolic dimensions), the family's third sample
        "[TensorRT-LLM][ERROR] IExecutionContext::inferShapes: Error Code 7: Internal Error (LLaMAForCausalLM/"
        "transformer/vocab_embedding/embedding_L2657/GATHER_0_output_0: tensor volume exceeds 2147483647, dimensions "
        "are [num_tokens,4096] Condition '<' violated: 524288 >= 524288. Instruction: CHECK_LESS 524288 524288.)\n",
    ],
)
def test_trt_volume_wordings_across_releases(line: str) -> None:
    assert decided(line)[:2] == ("runtime-assumption", "int32-index-overflow")


# --- a stated minimum compute capability ----------------------------------------------------------------------------


def test_kernl_ampere_minimum_is_arch_feature_unavailable() -> None:
    category, mode, rule = decided(KERNL)
    assert (category, mode, rule) == (
        "runtime-assumption",
        "arch-feature-unavailable",
        "device-below-stated-minimum-cc",
    )
    d = classify_text(KERNL).diagnosis
    assert d is not None and d.best is not None
    assert "8.0 (sm_80)" in d.best.what


@pytest.mark.parametrize(
    ("line", "need"),
    [
        # the samples of diagnose/data/catalogue/capability-minimum-prose.yaml (their sources are there)
        ("AssertionError: Device compute capability 8.9 or higher required for FP8 execution.\n", "8.9 (sm_89)"),
        ("RuntimeError: Flash attention currently only supported for compute capability >= 80\n", "8.0 (sm_80)"),
        (
            "ValueError: SAGE_ATTN_3 was explicitly selected but requires a Blackwell-class GPU with compute "
            "capability >= 10.0. Select a compatible backend.\n",
            "10.0 (sm_100)",
        ),
        ("RuntimeError: Your device is too old. We require compute capability >= 50\n", "5.0 (sm_50)"),
        ("RuntimeError: SM80 or newer GPU is required\n", "8.0 (sm_80)"),
        # an architecture's name stands for its first compute capability
        ("RuntimeError: Hopper or newer is required; detected CC (8, 6)\n", "9.0 (sm_90)"),
    ],
)
def test_stated_minimums_decide_with_the_value(line: str, need: str) -> None:
    report = classify_text(line)
    d = report.diagnosis
    assert d is not None and d.best is not None
    assert (report.category, d.failure_mode) == ("runtime-assumption", "arch-feature-unavailable")
    assert need in d.best.what


@pytest.mark.parametrize(
    "text",
    [
        # captured by running pytest 8.4 -rs on a test with PyTorch's skip reason (rules/cuda/cuda-arch-requirement-unmet.yaml)
        "SKIPPED [1] test_symm_mem_fp8.py:7: Requires compute capability >= 8.9\n",
        # a requirement in a README's list of prerequisites (Ocean SpGEMM's README): no error line
        "- NVIDIA GPUs with compute capability 8.0 or higher\n",
        # a test that skips itself, and an example that prints why it does not run (public sources' own checks)
        "unittest.case.SkipTest: SM90 or newer GPU is required, got capability (8, 6)\n",
        "Skipping NVFP4 example: an SM100 or newer GPU is required.\n",
    ],
)
def test_a_stated_requirement_without_a_failure_is_silent(text: str) -> None:
    assert verdict(text)[0] == "no-failure"
