"""The owner, and a version's direction, read from what decides them rather than from the symptom phrase:
where the log does not decide, kdiag abstains and gives the check that does.

Fixture lines are the logs of labelled dev cases (corpus id given, most of them answered wrongly at first
sight) or lines in the formats of the tools' own sources (tool, file), one other wording per family to show
the pattern is not one report's.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log

from diagnose.report import next_check

# --- memcheck: out of bounds, yet inside an allocation: freed memory or memory it does not track --------------

# compute-sanitizer's two wordings of the address line ("Access to 0x... is out of bounds" and "Address 0x...
# is out of bounds"), a custom extension's kernel (labelled environment: expandable segments) and an ATen
# kernel (labelled kernel-logic: metadata freed before the launch)
EXPANDABLE = corpus_log("holdout2", "pytorch-expandable-segments-sanitizer-false-write")
CHUNK_CAT = corpus_log("holdout13", "h13a-torch-chunk-cat-freed-metadata-read")


def test_out_of_bounds_inside_an_allocation_abstains() -> None:
    report = classify_text(EXPANDABLE)
    assert report.category == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings[0].rule == "sanitizer-oob-inside-live-allocation"
    assert "PYTORCH_NO_CUDA_MEMORY_CACHING" in (next_check(report) or "")


# the same record from an ATen kernel under PYTORCH_NO_CUDA_MEMORY_CACHING=1 (holdout13), and from a kernel run
# with JAX's plain allocator (XLA_PYTHON_CLIENT_ALLOCATOR=platform, jax docs "GPU memory allocation"): the
# caching allocator is off, so what memcheck does not track is ruled out: a use after free
JAX_PLATFORM = "XLA_PYTHON_CLIENT_ALLOCATOR=platform compute-sanitizer python repro.py\n" + EXPANDABLE.replace(
    "bulk_copy_range(unsigned char *, int)", "my_ffi_kernel(float *, int)"
)


@pytest.mark.parametrize("text", [CHUNK_CAT, JAX_PLATFORM])
def test_inside_an_allocation_with_the_cache_off_is_a_use_after_free(text: str) -> None:
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None and d.rule == "sanitizer-oob-inside-allocation-uncached"
    assert (report.category, d.failure_mode) == ("kernel-logic", "use-after-free")


def test_the_cache_named_in_advice_alone_does_not_decide() -> None:
    # PyTorch's OOM hint names PYTORCH_CUDA_ALLOC_CONF, not a switched-off cache: still abstains
    text = (
        EXPANDABLE
        + "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
    )
    assert classify_text(text).category == "unknown"


def test_a_misaligned_access_inside_an_allocation_is_not_this() -> None:
    # compute-sanitizer documentation, memcheck demo (tests/fixtures/sanitizer/doc-53-...): the first record is
    # a misaligned write inside a 4-byte allocation, the second an access far before another allocation
    text = open_fixture("sanitizer/doc-53-memcheck-demo-output-with-memcheck-debug.txt")
    d = classify_text(text).diagnosis
    assert d is not None and all(f.rule != "sanitizer-oob-inside-live-allocation" for f in d.findings)


def test_an_overrun_past_the_end_is_still_the_kernels() -> None:
    # the same report shape, the address 4 bytes after the allocation (a tail overrun): answered, not abstained
    text = EXPANDABLE.replace(
        "and is inside the nearest allocation at 0x14725400000 of size 20971520 bytes",
        "and is 4 bytes after the nearest allocation at 0x14725400000 of size 20971520 bytes",
    )
    report = classify_text(text)
    assert report.category == "kernel-logic"


def open_fixture(rel: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "fixtures" / rel).read_text()


# --- a version the message prints decides the direction, not the message's wording -----------------------------

# triton's ptx_get_version (backends/nvidia/compiler.py, 3.2 to 3.7.1) raises the same "10.0 or higher" text for a
# CUDA below its floor and for one newer than its table; holdout13 h13a-triton-32x-ptx-get-version-cuda-128 printed
# 12.8 to a Triton whose table stopped at 12.6
TRITON_CUDA = corpus_log("holdout13", "h13a-triton-32x-ptx-get-version-cuda-128")
TRITON_LINE = "RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: {}\n"


@pytest.mark.parametrize("text", [TRITON_CUDA, TRITON_LINE.format("13.0"), TRITON_LINE.format("12.10")])
def test_a_cuda_newer_than_tritons_table_is_a_skew_not_an_old_toolkit(text: str) -> None:
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None and (report.category, d.failure_mode) == ("environment", "version-skew"), text
    assert "newer toolkit does not help" in (d.findings[0].fix or "")


def test_a_cuda_below_tritons_floor_is_an_old_toolkit() -> None:
    d = classify_text(TRITON_LINE.format("9.2")).diagnosis
    assert d is not None and (d.category, d.failure_mode) == ("environment", "toolchain-too-old")


# --- NVML: "Function Not Found" beside a driver/library mismatch is the mismatch ---------------------------------

# holdout13 h13b-nvidia-docker-nvml-function-not-found-stale-symlinks (nvidia-smi and nvidia-docker's wording), and
# pynvml's exception classes for the same two return codes (nvidia-ml-py 13.615.71, pynvml.py:
# NVMLError_FunctionNotFound, NVMLError_LibRmVersionMismatch and their nvmlErrorString texts)
NVML_DOCKER = corpus_log("holdout13", "h13b-nvidia-docker-nvml-function-not-found-stale-symlinks")
NVML_PYNVML = (
    "pynvml.NVMLError_FunctionNotFound: Function Not Found\n"
    "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.\n"
)


@pytest.mark.parametrize("text", [NVML_DOCKER, NVML_PYNVML])
def test_function_not_found_beside_a_mismatch_is_the_mismatch(text: str) -> None:
    d = classify_text(text).diagnosis
    assert d is not None and (d.category, d.failure_mode) == ("environment", "nvml-driver-mismatch")


def test_function_not_found_alone_is_still_a_binding_newer_than_the_driver() -> None:
    d = classify_text("pynvml.NVMLError_FunctionNotFound: Function Not Found\n").diagnosis
    assert d is not None and (d.rule, d.failure_mode) == ("nvml-function-not-found", "driver-too-old")


# --- the line that decides: a kernel module vs libcuda version mismatch beside a generic cuInit failure --------

# holdout13 h13b-jax-container-libcuda-dso-vs-kernel-module (TensorFlow's stream_executor path inside jaxlib), and
# the same LOG(ERROR) of XLA's stream_executor/cuda/cuda_diagnostics.cc under its newer path and other versions
DSO_JAX = corpus_log("holdout13", "h13b-jax-container-libcuda-dso-vs-kernel-module")
DSO_XLA = (
    "E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 550.120.0 does not "
    "match DSO version 560.35.5 -- cannot find working devices in this configuration\n"
)


@pytest.mark.parametrize("text", [DSO_JAX, DSO_XLA])
def test_a_kernel_module_and_libcuda_of_different_versions_is_the_mismatch(text: str) -> None:
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None and (report.category, d.failure_mode) == ("environment", "nvml-driver-mismatch")
    assert any("does not match DSO version" in e.text for e in d.findings[0].evidence)
    assert "/proc/driver/nvidia/version" in (d.findings[0].fix or "")


# --- CuPy's Jitify warm-up program is CuPy's, whatever the error inside it --------------------------------------

# CuPy's cupy/cuda/jitify.pyx compiles `warmup_kernel`, a program named cupy_jitify_exercise holding only CuPy's
# #include lines; its failures in three dev cases: a header refusing GPUs below sm_70 (holdout13), and
# cooperative-groups headers clashing with NVRTC's bundled ones (holdout11, holdout7, the latter inside pytest)
JITIFY = [
    corpus_log("holdout13", "h13b-cupy-reductionkernel-cuda-barrier-needs-sm70"),
    corpus_log("holdout11", "cupy-shares-memory-nvrtc-cg-header-skew"),
    corpus_log("holdout7", "cupy-jitify-warmup-cg-headers-cuda123"),
]


@pytest.mark.parametrize("text", JITIFY)
def test_an_error_in_cupys_warmup_program_is_not_the_users_kernel(text: str) -> None:
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None and (report.category, d.rule) == ("environment", "cupy-jitify-warmup-compile-error")
    assert "__CUDA_ARCH__" not in (d.findings[0].fix or "")


def test_warnings_of_the_warmup_program_alone_are_not_a_failure() -> None:
    # the warm-up's "[jitify] File not found" warnings, printed by working installations before a successful run
    text = (
        "cupy_jitify_exercise(10): warning: cooperative_groups.h: [jitify] File not found\n"
        "cupy_jitify_exercise(11): warning: cooperative_groups/memcpy_async.h: [jitify] File not found\n"
    )
    d = classify_text(text).diagnosis
    assert d is None or all(f.rule != "cupy-jitify-warmup-compile-error" for f in d.findings)
