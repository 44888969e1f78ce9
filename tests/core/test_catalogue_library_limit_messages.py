"""Library messages that decide by themselves: spconv's assert that a sparse tensor exceeds the int32 range its
kernels use, stdgpu's clamped size of a container that overflowed its capacity, a library's refusal of dynamic
shared memory over the device's opt-in limit (runtime-assumption); cuDeviceGetAttribute refusing an attribute in
a framework's driver wrapper, an assert() in TensorRT's Myelin sources, and a cuDNN allocation failure inside
XLA, which preallocates the GPU (environment)."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import classify_text, corpus_log


@pytest.mark.parametrize(
    ("case", "category", "rule"),
    [
        ("h22b-trellis-spconv-exceeds-int32-range", "runtime-assumption", "spconv-data-exceeds-int32-range"),
        ("h22b-open3d-tsdf-hashmap-overflow", "runtime-assumption", "stdgpu-container-size-out-of-bounds"),
        ("h22b-pysiglib-dynamic-smem-over-limit", "runtime-assumption", "library-dynamic-smem-over-device-optin"),
        ("h22b-taichi-device-attribute-cuda102", "environment", "cuda-driver-device-attribute-invalid-value"),
        ("h22b-tensorrt-myelin-invalid-size-orin", "environment", "tensorrt-myelin-internal-check"),
        ("h22b-jax-cudnn-alloc-failed-preallocation", "environment", "concept-cudnn-alloc-failed-under-xla"),
    ],
)
def test_the_library_message_decides(case: str, category: str, rule: str) -> None:
    report = classify_text(corpus_log("holdout22", case))
    d = report.diagnosis
    assert report.status == "diagnosed" and d is not None
    assert (d.findings[0].category, d.findings[0].rule) == (category, rule)


def test_numbas_wording_of_the_refused_attribute_is_the_same_family() -> None:
    # numba/cuda/cudadrv/driver.py's "Call to %s results in %s" with the call and status filled in
    report = classify_text(
        "numba.cuda.cudadrv.driver.CudaAPIError: [1] Call to cuDeviceGetAttribute results in CUDA_ERROR_INVALID_VALUE\n"
    )
    d = report.diagnosis
    assert report.status == "diagnosed" and d is not None
    assert d.findings[0].rule == "cuda-driver-device-attribute-invalid-value"


def test_a_cudnn_allocation_failure_outside_xla_still_abstains() -> None:
    # PyTorch's CUDNN_CHECK message (aten/src/ATen/cudnn/Exceptions.h) with this status: no preallocation to blame
    report = classify_text("RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED\n")
    assert report.status == "unknown"


def test_taichis_exhausted_memory_pool_decides() -> None:
    # constructed: the __assertfail message of Taichi's runtime.cpp (allocate_from_buffer) in CUDA's device-assert
    # format ("<file>:<line>: <function>: block: [...], thread: [...] Assertion `<message>` failed.")
    text = (
        "Taichi JIT:0: allocate_from_buffer: block: [0,0,0], thread: [0,0,0] Assertion `Out of CUDA pre-allocated "
        "memory.\nConsider using ti.init(device_memory_fraction=0.9) or ti.init(device_memory_GB=4) to allocate more "
        "GPU memory` failed.\n"
    )
    report = classify_text(text)
    d = report.diagnosis
    assert report.status == "diagnosed" and d is not None
    assert (d.findings[0].category, d.findings[0].rule) == ("runtime-assumption", "taichi-out-of-preallocated-memory")


def test_a_bare_device_assert_in_taichi_abstains_with_the_memory_pool_among_the_candidates() -> None:
    report = classify_text(corpus_log("holdout22", "h22b-taichi-elements-device-assert-small-pool"))
    d = report.diagnosis
    assert report.status == "unknown" and d is not None
    rules = {f.rule for f in d.findings}
    assert "taichi-cuda-device-assert-at-driver-call-as-runtime-assumption" in rules


def test_another_tensorview_assert_is_a_failure_that_abstains() -> None:
    # constructed: spconv's TV_ASSERT_RT_ERR(N == output.dim(0), "error") in tensorview's format
    report = classify_text("RuntimeError: /io/spconv/src/spconv/all.cc(45)\nN == output.dim(0) assert faild. error\n")
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None
    assert "tensorview-assert-failed-as-runtime-assumption" in {f.rule for f in d.findings}
