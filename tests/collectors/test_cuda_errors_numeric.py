"""CUDA statuses printed only as numbers, decoded with the toolkit's own tables (diagnose/data/cuda_errors.json:
cudaGetErrorName of libcudart 13.0 and the CUresult enum of cuda.h 13.0)."""

from __future__ import annotations

import pytest

from diagnose.collectors.cuda_errors import parse


@pytest.mark.parametrize(
    ("line", "error", "form", "api_call"),
    [
        # tensorflow/tensorflow#526: glog's CHECK_EQ prints (lhs value vs. rhs value); 216 is the CUresult
        # CUDA_ERROR_CONTEXT_ALREADY_IN_USE, whose runtime twin is cudaErrorDeviceAlreadyInUse
        (
            "Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)",
            "cudaErrorDeviceAlreadyInUse",
            "driver-api",
            "cuCtxSetCurrent",
        ),
        # corpus/holdout6 amrex-arena-init-out-of-memory (AMReX's own abort text): the number and the message
        (
            "amrex::Abort::0::CUDA error 2 in file ../../../../amrex/Src/Base/AMReX_Arena.cpp line 169: out of memory !!!",
            "cudaErrorMemoryAllocation",
            "raw",
            None,
        ),
        # corpus/holdout2 (ggml-cuda.cu): code 716 with its message
        ("CUDA error 716 at ggml-cuda.cu:7546: misaligned address", "cudaErrorMisalignedAddress", "raw", None),
        # corpus/holdout67 (solana-labs/solana#7975): a Rust panic with the runtime call's status after "error:"
        (
            "panicked at 'cudaHostRegister error: 35 ptr: 0x7efe93615b80 bytes: 333824', perf/src/cuda_runtime.rs:33:17",
            "cudaErrorInsufficientDriver",
            "raw",
            "cudaHostRegister",
        ),
        # corpus/holdout67 (beehive-lab/TornadoVM#195): a driver-API call's CUresult after an arrow, a driver code
        (
            "[TornadoVM-PTX-JNI] ERROR : cuLaunchKernel -> Returned: 701",
            "cudaErrorLaunchOutOfResources",
            "raw",
            "cuLaunchKernel",
        ),
        # corpus/holdout67 (decred/gominer#44): a Go binding's CUresult it has no name for; 35 is no driver code, so
        # the runtime's (the binding wraps cudaDeviceReset)
        ("panic: Unknown CUresult: 35", "cudaErrorInsufficientDriver", "raw", None),
        # corpus/holdout24 (arrayfire/arrayfire#1894): ArrayFire's CU_CHECK prints the CUresult alone,
        # "CU Error (%d)\n" (src/backend/cuda/jit.cpp before 3.7); 1 is CUDA_ERROR_INVALID_VALUE
        ("CU Error (1)", "cudaErrorInvalidValue", "raw", None),
        # the "CU error %d at %s:%d\n" of hand-written CU_CHECK macros: 209 is the driver's
        # CUDA_ERROR_NO_BINARY_FOR_GPU (the runtime's 209 is the same error)
        ("CU error 209 at main.cu:40", "cudaErrorNoKernelImageForDevice", "raw", None),
        # corpus/holdout29 (openmm/openmm#719): OpenMM's CHECK_RESULT prints its name lookup's fallback and the
        # CUresult in parentheses; 700 is the driver's CUDA_ERROR_ILLEGAL_ADDRESS
        (
            "Exception: Error downloading array energyBuffer: Invalid error code (700)",
            "cudaErrorIllegalAddress",
            "raw",
            None,
        ),
    ],
)
def test_numeric_statuses_are_decoded(line: str, error: str, form: str, api_call: str | None) -> None:
    f = parse(line)
    assert f is not None
    assert (f.error, f.form, f.api_call) == (error, form, api_call)


def test_a_number_alone_is_read_from_the_runtime_table() -> None:
    # the amrex line without its message: 2 is cudaErrorMemoryAllocation in libcudart's table
    f = parse("amrex::Abort::0::CUDA error 2 in file ../../../../amrex/Src/Base/AMReX_Arena.cpp line 169")
    assert f is not None and f.error == "cudaErrorMemoryAllocation" and f.code == 2


def test_the_message_wins_over_an_old_number() -> None:
    # faiss (corpus/holdout5): CUDA before 10.1 numbered illegal address 77; the printed message decides
    f = parse(
        "/project/faiss/faiss/gpu/utils/Tensor-inl.cuh:206; details: CUDA error 77 an illegal memory access was encountered"
    )
    assert f is not None and f.error == "cudaErrorIllegalAddress"


@pytest.mark.parametrize(
    "line",
    [
        "Using CUDA version 12.1",  # a version is no status
        "CUDA error 11.8",  # a version after the words, not a code
        "Check failed: x == y (3 vs. 4)",  # a glog check that is not about a CUDA status
        "Invalid error code (2)",  # a small enum's fallback: no CUresult of three digits
    ],
)
def test_numbers_that_are_not_statuses(line: str) -> None:
    assert parse(line) is None


def test_a_glog_check_on_the_runtime_success_name_uses_the_runtime_table() -> None:
    # Caffe's form (BVLC/caffe#1793), here with the message dropped: 9 is cudaErrorInvalidConfiguration
    f = parse("Check failed: error == cudaSuccess (9 vs. 0)")
    assert f is not None and f.error == "cudaErrorInvalidConfiguration"


@pytest.mark.parametrize(
    ("line", "error", "code"),
    [
        # TensorRT 7.x's start-up check (NVIDIA/TensorRT#1052; corpus/holdout16
        # h16b-insightface-rest-trt-error-222-old-driver): 222 is cudaErrorUnsupportedPtxVersion
        (
            "[TensorRT] ERROR: CUDA initialization failure with error 222. Please check your CUDA installation:  "
            "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
            "cudaErrorUnsupportedPtxVersion",
            222,
        ),
        # TensorRT 10's wording, a colon before the number (vbanakha/edgePtychoNN#5)
        (
            "  what():  CUDA initialization failure with error: 35. Please check your CUDA installation: "
            "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html In "
            "checkCudaInstalledAndPrintMemoryUsage at optimizer/api/builder.cpp:1238",
            "cudaErrorInsufficientDriver",
            35,
        ),
        # TensorRT 5/6 (lewes6369/TensorRT-Yolov3#61)
        (
            "ERROR: Cuda initialization failure with error 35. Please check cuda installation:  "
            "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html.",
            "cudaErrorInsufficientDriver",
            35,
        ),
        # the CHECK(status) macro of TensorRT's samples (`"Cuda failure: " << ret`), the issue title of
        # bychen7/Face-Restoration-TensorRT#12 (corpus/holdout16 h16b-face-restoration-trt-512-model-hardcoded-size)
        ("Cuda failure: 700", "cudaErrorIllegalAddress", 700),
    ],
)
def test_tensorrt_numeric_statuses(line: str, error: str, code: int) -> None:
    f = parse(line)
    assert f is not None and (f.error, f.code) == (error, code)


def test_a_cuda_failure_that_names_no_number_is_left_to_its_words() -> None:
    # Tianxiaomo/pytorch-YOLOv4#310's title: the message decides, no number is invented
    f = parse("Cuda failure: initialization error")
    assert f is not None and f.error == "cudaErrorInitializationError"


def test_a_count_after_cuda_failure_is_no_status() -> None:
    # the macro prints the number and ends the line; a number that goes on into words is something else
    assert parse("CUDA failure: 3 retries left") is None


@pytest.mark.parametrize(
    ("line", "error", "api_call"),
    [
        # cuda-gdb's API error check prints the status in hex (lines quoted in public repositories' notes)
        (
            "warning: Cuda API error detected: cudaLaunchKernel returned (0x9)",
            "cudaErrorInvalidConfiguration",
            "cudaLaunchKernel",
        ),
        (
            "Cuda API error detected: cudaLaunchKernel returned (0x2bd)",
            "cudaErrorLaunchOutOfResources",
            "cudaLaunchKernel",
        ),
        (
            "warning: Cuda API error detected: cudaLaunchKernel returned (0xd1)",
            "cudaErrorNoKernelImageForDevice",
            "cudaLaunchKernel",
        ),
        # a driver call's code is a CUresult (400: CUDA_ERROR_INVALID_HANDLE)
        (
            "warning: Cuda API error detected: cuLaunchKernelEx returned (0x190)",
            "cudaErrorInvalidResourceHandle",
            "cuLaunchKernelEx",
        ),
    ],
)
def test_cuda_gdb_api_errors_are_decoded_from_hex(line: str, error: str, api_call: str) -> None:
    f = parse(line)
    assert f is not None
    assert (f.error, f.form, f.api_call) == (error, "cuda-gdb", api_call)


def test_cuda_gdb_runtime_code_from_before_the_renumbering_is_not_guessed() -> None:
    # CUDA 7.5's cuda-gdb: 7 was cudaErrorLaunchOutOfResources then, another error in today's table
    f = parse("warning: Cuda API error detected: cudaLaunch returned (0x7).")
    assert f is None or f.error != "cudaErrorProfilerAlreadyStarted"


@pytest.mark.parametrize("line", ["ICU error 5", "CU error 2.5 s", "CUDA CU error"])
def test_cu_error_needs_the_word_and_a_whole_number(line: str) -> None:
    assert parse(line) is None
