"""A launch the runtime refused inside a library's or framework's own code, and inside a library's own
test suite: not an assumption of the caller's.

Fixture lines are the logs of labelled dev cases (corpus id given) or lines printed in the formats of the
tools' own sources (tool, file), one other wording per family to show the pattern is not one report's.
"""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log, decided

from diagnose.collectors import families, location
from diagnose.confidence import LIBRARY_LAUNCH_CEILING, library_launch

BN = corpus_log("holdout9", "torch-batchnorm1d-huge-batch-invalid-configuration")
NUMBA = corpus_log("holdout9", "numba-cuda-forall-max-block-size-out-of-resources")
CUB = corpus_log("holdout", "cub-test-unoptimized-build-701")
# CCCL's CMake names CUB's test binaries cub.cpp<dialect>.test.<name> (its cccl_get_label_path helper)
CUB_CPP17 = corpus_log("holdout6", "cub-batch-copy-test-reads-past-num-buffers")
PADDLE = corpus_log("holdout6", "paddle-scale-zero-size-grid")
JETSON = corpus_log("holdout6", "torch-jetson-upsample-bilinear-too-many-resources")
UPSAMPLE = corpus_log("holdout5", "torch-upsample-nearest2d-grid-exceeds-limit")

# BN's check line without the lines that print the size
BN_NO_SIZE = "\n".join(line for line in BN.splitlines() if not line.startswith("i, N"))
# Paddle's enforce format for a CUDA error (paddle/phi/core/enforce.h: "CUDA error(%d), %s." then the
# "[Hint: ...] (at FILE:LINE)" suffix); the kernel file and line filled in here
PADDLE_ENFORCE = (
    "OSError: (External) CUDA error(9), invalid configuration argument. \n"
    "  [Hint: 'cudaErrorInvalidConfiguration'. ] "
    "(at /paddle/paddle/phi/kernels/gpu/scale_kernel.cu:61)\n"
)
# c10's backtrace format (c10/util/Backtrace.cpp: "frame #%d: %s + 0x%x (0x%x in %s)") under torch's CUDA
# check (c10/cuda/CUDAException.cpp); the op's frame filled in here
TORCH_FRAMES = (
    "RuntimeError: CUDA error: invalid configuration argument\n"
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f1 in /x/torch/lib/libc10.so)\n"
    "frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 "
    "(0x7f2 in /x/torch/lib/libc10_cuda.so)\n"
    "frame #2: at::native::batch_norm_cuda(at::Tensor const&) + 0x2a1 (0x7f3 in /x/torch/lib/libtorch_cuda.so)\n"
)
# the async case: an illegal address noticed at one of ATen's later checks says nothing about whose
# kernel failed (THCudaCheck's format, as in BN above)
ATEN_IMA = (
    "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=278 error=77 : "
    "an illegal memory access was encountered\n"
)


# --- where the refused launch was made ------------------------------------------------------------------


def test_a_refused_launch_at_a_framework_op_site_is_the_frameworks() -> None:
    for text, lib in (
        (BN, "ATen (PyTorch)"),
        (TORCH_FRAMES, "ATen (PyTorch)"),
        (UPSAMPLE, "ATen (PyTorch)"),
        (PADDLE, "Paddle"),
        (PADDLE_ENFORCE, "Paddle"),
        (JETSON, "ATen (PyTorch)"),
    ):
        facts = location.parse(text)
        assert facts is not None and (facts.kind, facts.library) == ("library", lib), text


def test_an_async_error_at_a_framework_check_is_not_located_there() -> None:
    facts = location.parse(ATEN_IMA)
    assert facts is None or facts.kind != "library"


def test_a_librarys_own_test_suite_is_located_in_it() -> None:
    for text, lib, compiler in ((NUMBA, "numba", True), (CUB, "CUB/Thrust", False), (CUB_CPP17, "CUB/Thrust", False)):
        facts = location.parse(text)
        assert facts is not None
        assert (facts.kind, facts.library, facts.test_suite, facts.test_suite_compiler) == (
            "library",
            lib,
            lib,
            compiler,
        )
        assert facts.checkout  # the library's own source tree: "upgrade" is not the advice
    user = location.parse('File "tests/test_kernel.py", line 3, in test_launch\n  x = kernel[1, 1024]()\n')
    assert user is not None and user.test_suite is None and user.kind == "user"  # a project's own tests


def test_printed_sizes_are_read_from_the_names_a_script_prints() -> None:
    assert families.printed_size(BN) == 131072.0  # print("i, N", i, N)
    # llama.cpp's context printout (src/llama.cpp: "n_batch    = %u")
    assert families.printed_size("llama_new_context_with_model: n_batch    = 2048\n") == 2048.0
    assert families.printed_size("step: 3, loss: 0.25, 12 GB: 40") is None


# --- who owns it ----------------------------------------------------------------------------------------


def test_framework_op_refused_at_an_ordinary_size_is_the_ops() -> None:
    report = classify_text(BN)
    assert (report.category, report.failure_mode) == ("kernel-logic", "wrong-launch-grid")
    d = report.diagnosis
    assert d is not None and d.rule == "cuda-invalid-configuration-in-library-at-ordinary-size"
    assert d.confidence >= 0.5
    fix = d.findings[0].fix
    # the caller's actions: upgrade or report, and a workaround; not the kernel author's
    assert "upstream" in fix and "chunks" in fix
    assert "__launch_bounds__" not in fix and "grid-stride" not in fix
    assert "your own after all" not in fix  # written for the caller: no author's fix behind the library's lead


def test_without_a_size_the_library_launch_abstains_with_both_owners() -> None:
    for text in (BN_NO_SIZE, UPSAMPLE, PADDLE, PADDLE_ENFORCE):
        report = classify_text(text)
        assert report.category == "unknown", text
        d = report.diagnosis
        assert d is not None and d.findings[0].rule == "cuda-invalid-configuration-in-library"
        assert d.findings[0].category == "kernel-logic"
        assert {"kernel-logic", "runtime-assumption"} <= {f.category for f in d.findings}


def test_a_size_past_int32_is_not_the_ops() -> None:
    # an input past the index range is outside the op's contract: the library rule does not decide it
    text = f"shape=(70000, 70000)\n{BN_NO_SIZE}"
    category, _, rule = decided(text)
    assert rule != "cuda-invalid-configuration-in-library-at-ordinary-size"
    assert category != "kernel-logic"


def test_too_many_resources_in_a_framework_op_abstains() -> None:
    # Jetson's smaller register file or the op's launch bounds: the GPU's registers per block decide
    report = classify_text(JETSON)
    assert report.category == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings[0].rule == "cuda-launch-out-of-resources-in-library"
    assert {"kernel-logic", "runtime-assumption"} <= {f.category for f in d.findings}


def test_a_compilers_own_test_suite_is_the_toolchains() -> None:
    # Triton's driver error (backends/nvidia/driver.c gpuAssert) in a pytest line of its own tests
    triton = (
        "python/test/unit/language/test_core.py::test_dot[4-64-64-64] FAILED\n"
        "E   RuntimeError: Triton Error [CUDA]: too many resources requested for launch\n"
    )
    for text in (NUMBA, triton):
        assert decided(text) == ("environment", "toolchain-bug", "cuda-launch-refused-in-compiler-test-suite"), text


def test_a_kernel_librarys_own_test_is_the_librarys_kernel() -> None:
    # CuPy's CUDADriverError format (cupy_backends/cuda/api/driver.pyx) in pytest's summary line
    cupy = (
        "FAILED tests/cupy_tests/core_tests/test_raw.py::TestRaw::test_launch - cupy_backends.cuda.api.driver."
        "CUDADriverError: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch\n"
    )
    for text in (CUB, cupy):
        category, _, rule = decided(text)
        assert (category, rule) == ("kernel-logic", "cuda-launch-refused-in-library-test-suite"), text


def test_the_users_own_launch_is_not_a_test_suites() -> None:
    # numba's CudaAPIError format (numba/cuda/cudadrv/driver.py) from a user's script
    text = (
        'File "train.py", line 12, in <module>\n'
        "numba.cuda.cudadrv.driver.CudaAPIError: [701] Call to cuLaunchKernel results in "
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES\n"
    )
    _, _, rule = decided(text)
    assert rule not in ("cuda-launch-refused-in-compiler-test-suite", "cuda-launch-refused-in-library-test-suite")


# --- the confidence bound -------------------------------------------------------------------------------


def test_library_launch_bound() -> None:
    base = {"cuda_error": "cudaErrorInvalidConfiguration", "location_kind": "library", "location_library": "ATen"}
    assert library_launch(base) is not None
    assert library_launch({**base, "concept_printed_size": 131072.0}) is None
    assert library_launch({**base, "concept_max_elements": 4096.0}) is None
    assert library_launch({**base, "location_test_suite": "CUB/Thrust"}) is None
    assert library_launch({**base, "location_kind": "user"}) is None
    # registers: the size does not decide, the GPU's register file does
    oor = {**base, "cuda_error": "cudaErrorLaunchOutOfResources", "concept_printed_size": 4096.0}
    assert library_launch(oor) is not None
    assert 0 < LIBRARY_LAUNCH_CEILING < 0.5
