"""CUDA statuses in the words of cuew (the CUDA wrangler Blender's Cycles loads the driver through) and a framework's
own device-assertion macro that prints the file and line without block and thread (PaddlePaddle's PADDLE_ASSERT)."""

from __future__ import annotations

import pytest

from diagnose.collectors.cuda_errors import parse
from diagnose.collectors.oom import parse as parse_oom


@pytest.mark.parametrize(
    ("line", "error", "call"),
    [
        # Cycles' queue (intern/cycles/device/cuda/queue.cpp: "%s in CUDA queue %s (%s)"); corpus/holdout71
        (
            "Illegal address in CUDA queue copy_from_device (integrator_shade_surface prefix_sum)",
            "cudaErrorIllegalAddress",
            None,
        ),
        # Cycles' device (cuda_assert: "%s in %s (%s:%d)"), Blender 4.1 on Windows; corpus/holdout71
        (
            r"Invalid context in cuStreamCreate(&cuda_stream_, CU_STREAM_NON_BLOCKING) (C:\blender\intern\cycles\device\cuda\queue.cpp:21)",
            "cudaErrorDeviceUninitialized",  # the runtime twin of CUDA_ERROR_INVALID_CONTEXT (201)
            "cuStreamCreate",
        ),
        # older Cycles ("CUDA error: %s in %s, line %d")
        (
            "CUDA error: Launch exceeded timeout in cuCtxSynchronize(), line 1372",
            "cudaErrorLaunchTimeout",
            "cuCtxSynchronize",
        ),
        (
            "CUDA error: No binary for GPU in cuModuleLoad(&cuModule, cubin), line 310",
            "cudaErrorNoKernelImageForDevice",
            "cuModuleLoad",
        ),
    ],
)
def test_cuew_descriptions_are_the_driver_status(line: str, error: str, call: str | None) -> None:
    facts = parse(line)
    assert facts is not None and facts.error == error, facts
    assert facts.api_call == call


@pytest.mark.parametrize(
    "line",
    [
        "the queue in CUDA queue order was refilled",  # no cuew description before it
        "Invalid value in the config file (line 3)",  # no driver call or queue after it
        "invalid value in cudaMemcpy(dst, src, n, kind)",  # a runtime call: not cuew's words
    ],
)
def test_cuew_words_without_the_shape_are_not_a_status(line: str) -> None:
    facts = parse(line)
    assert facts is None or facts.error not in ("cudaErrorIllegalAddress", "cudaErrorInvalidValue"), facts


def test_cuew_out_of_memory_is_an_out_of_memory() -> None:
    assert parse_oom("Out of memory in CUDA queue enqueue (integrator_intersect_closest)") is not None
    assert parse_oom("CUDA error: Out of memory in cuMemAlloc(&device_pointer, size), line 568") is not None
    assert parse_oom("Out of memory in the shader cache, retrying") is None


def test_a_framework_assert_macro_with_file_and_line_is_a_device_assert() -> None:
    # corpus/holdout71 (PaddlePaddle/Paddle#15568)
    line = "/paddle/paddle/fluid/operators/math/cross_entropy.cu:40 Assertion `label[i] >= 0 && label[i] < D || label[i] == ignore_index` failed."
    facts = parse(line)
    assert facts is not None and facts.device_assert
    assert facts.assert_message == "Assertion `label[i] >= 0 && label[i] < D || label[i] == ignore_index` failed."


def test_glibc_host_assert_is_not_a_device_assert() -> None:
    # glibc puts ": function: " between the line and "Assertion" (and quotes with `...')
    facts = parse("app: kernel.cu:40: int main(): Assertion `n > 0' failed.")
    assert facts is None or not facts.device_assert
