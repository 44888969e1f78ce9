"""diagnose.collectors.cuda_errors and the generated table (diagnose/data/cuda_errors.json)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from diagnose.collectors import cuda_errors
from diagnose.collectors.cuda_errors import name_for_driver, name_for_hip, name_for_message, parse

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "cuda_errors"
REAL_DEV = ROOT / "corpus" / "public" / "real-dev.yaml"
DATA = ROOT / "diagnose" / "data" / "cuda_errors.json"


def real_dev(case_id: str) -> str:
    return {c["id"]: c["log"] for c in yaml.safe_load(REAL_DEV.read_text())}[case_id]


# --- the table -------------------------------------------------------------------


def test_table_header_says_how_it_was_made() -> None:
    header = json.loads(DATA.read_text())["header"]
    assert header["generated_by"] == "scripts/gen-cuda-errors"
    assert header["cuda_runtime_version"] >= 12000
    assert header["date"]


def test_table_has_the_runtime_names_and_codes() -> None:
    t = cuda_errors.tables()
    assert t.by_name["cudaErrorIllegalAddress"] == (700, "an illegal memory access was encountered")
    assert t.by_name["cudaErrorAssert"] == (710, "device-side assert triggered")
    assert t.by_name["cudaErrorInsufficientDriver"][0] == 35
    assert len(t.by_name) > 100


def test_driver_names_map_to_runtime_names() -> None:
    assert name_for_driver("CUDA_ERROR_ILLEGAL_ADDRESS") == "cudaErrorIllegalAddress"
    assert name_for_driver("CUDA_ERROR_OUT_OF_MEMORY") == "cudaErrorMemoryAllocation"
    assert name_for_driver("CUDA_ERROR_NO_BINARY_FOR_GPU") == "cudaErrorNoKernelImageForDevice"
    assert name_for_driver("CUDA_ERROR_LAUNCH_FAILED") == "cudaErrorLaunchFailure"
    assert name_for_hip("hipErrorIllegalAddress") == "cudaErrorIllegalAddress"


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("unspecified launch failure", "cudaErrorLaunchFailure"),
        ("the launch timed out and was terminated", "cudaErrorLaunchTimeout"),
        ("all CUDA-capable devices are busy or unavailable", "cudaErrorDevicesUnavailable"),  # CUDA <= 10 string
        (
            "ERROR: cudaGetDeviceCount CUDA driver version is insufficient for CUDA runtime version",
            "cudaErrorInsufficientDriver",
        ),
        # cudaErrorUnsupportedPtxVersion's text, and a wrapper's copy of it without "the provided"
        # (dynexcoin/Dynex#42: "PUassert: The PTX was compiled with an unsupported toolchain, kernel.cu 2352")
        ("the provided PTX was compiled with an unsupported toolchain.", "cudaErrorUnsupportedPtxVersion"),
        ("The PTX was compiled with an unsupported toolchain, kernel.cu 2352", "cudaErrorUnsupportedPtxVersion"),
    ],
)
def test_messages_resolve_inside_longer_lines(message: str, name: str) -> None:
    assert name_for_message(f"[12:00:01] worker 3: {message} (retrying)") == name


@pytest.mark.toolkit
def test_generator_reproduces_the_checked_in_table(tmp_path: Path) -> None:
    out = tmp_path / "cuda_errors.json"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen-cuda-errors"), "--out", str(out)], check=True, capture_output=True
    )
    new, old = json.loads(out.read_text()), json.loads(DATA.read_text())
    assert new["runtime"] == old["runtime"] and new["driver"] == old["driver"]


# --- the surface forms -------------------------------------------------------------


def test_cupy_real_capture() -> None:
    f = parse((FIX / "cupy_nodriver.log").read_text())
    assert f is not None
    assert (f.error, f.code, f.form) == ("cudaErrorInsufficientDriver", 35, "cupy")
    assert f.message == "CUDA driver version is insufficient for CUDA runtime version"
    assert f.lines == (15,)


# (real-dev id, error, form, api_call)
REAL = [
    ("svox2-launch-bounds-2080ti", "cudaErrorLaunchOutOfResources", "torch", None),
    ("fla-rwkv7-ima-fixed-in-kernel", "cudaErrorIllegalAddress", "torch", None),
    ("triton-grid-y-65536-invalid-value", "cudaErrorInvalidValue", "triton", None),
    ("cutorch-mac-driver-insufficient", "cudaErrorInsufficientDriver", "legacy", None),
    ("remode-driver-insufficient-340", "cudaErrorInsufficientDriver", "raw", "cudaGetDeviceCount"),
    ("caffe-c2075-invalid-config-batch", "cudaErrorInvalidConfiguration", "legacy", None),
    ("hecbench-bn-off-by-one", "cudaErrorIllegalAddress", "hip", None),
    ("whisper-win-tdr-launch-timeout", "cudaErrorLaunchTimeout", "torch", None),
    ("vina-cuda-grid-params-ima", "cudaErrorIllegalAddress", "raw", "cudaDeviceSynchronize()"),
    ("thunderkittens-4090-regs-per-block", "cudaErrorLaunchOutOfResources", "raw", None),
    ("triton-tma-illegal-instruction-unaligned", "cudaErrorIllegalInstruction", "triton", None),
    ("megablocks-padded-copy-int32-overflow", "cudaErrorIllegalAddress", "torch", None),
]


@pytest.mark.parametrize(("case_id", "error", "form", "api_call"), REAL)
def test_real_dev_cases(case_id: str, error: str, form: str, api_call: str | None) -> None:
    f = parse(real_dev(case_id))
    assert f is not None
    assert (f.error, f.form, f.api_call) == (error, form, api_call)
    assert f.code == cuda_errors.tables().by_name[error][0]


@pytest.mark.parametrize(
    ("line", "error", "form"),
    [
        # torch >= 2.8 raises torch.AcceleratorError for CUDA errors
        (
            "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
            "cudaErrorIllegalAddress",
            "torch-accelerator",
        ),
        ("CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "driver-api"),
        (
            "numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuCtxSynchronize results in UNKNOWN_CUDA_ERROR",
            "cudaErrorIllegalAddress",
            "numba",
        ),
        (
            "numba.cuda.cudadrv.driver.CudaAPIError: [CUresult.CUDA_ERROR_ILLEGAL_ADDRESS] Call to cuMemcpyDtoH "
            "results in CUresult.CUDA_ERROR_ILLEGAL_ADDRESS",
            "cudaErrorIllegalAddress",
            "numba",
        ),
        ("RuntimeError: HIP error: hipErrorIllegalAddress", "cudaErrorIllegalAddress", "hip"),
        # pytorch/pytorch#465: legacy THC wording, old numbering (2 was and is cudaErrorMemoryAllocation)
        (
            "RuntimeError: cuda runtime error (2) : out of memory at /data/users/soumith/THCStorage.cu:65",
            "cudaErrorMemoryAllocation",
            "legacy",
        ),
        # CUDA < 10.1 numbered cudaErrorAssert 59: the message decides, not the number
        (
            "RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/THCTensorMath.cu:26",
            "cudaErrorAssert",
            "legacy",
        ),
    ],
)
def test_surface_forms(line: str, error: str, form: str) -> None:
    f = parse(line)
    assert f is not None and (f.error, f.form) == (error, form)


def test_numba_names_the_api_call() -> None:
    f = parse("numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuCtxSynchronize results in UNKNOWN_CUDA_ERROR")
    assert f is not None and f.api_call == "cuCtxSynchronize"


def test_device_side_assert_kernel_line() -> None:
    # the kernel's own assertion line, as PyTorch's index kernels print it (pytorch/pytorch IndexKernel.cu wording)
    log = (
        "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [5,0,0] "
        'Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.\n'
        "RuntimeError: CUDA error: device-side assert triggered\n"
    )
    f = parse(log)
    assert f is not None
    assert f.device_assert and f.error == "cudaErrorAssert"
    assert f.assert_message == 'Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.'
    assert f.lines == (1, 2)


def test_host_assert_is_not_a_device_assert() -> None:
    assert parse("python: main.c:12: main: Assertion `n > 0' failed.") is None


def test_errors_keep_order_and_first_wins() -> None:
    f = parse(
        "CUDA error: an illegal memory access was encountered\nCUDA error: unspecified launch failure\n"
        "CUDA error: an illegal memory access was encountered"
    )
    assert f is not None
    assert f.errors == ("cudaErrorIllegalAddress", "cudaErrorLaunchFailure")
    assert f.error == "cudaErrorIllegalAddress"


def test_sticky_names_are_runtime_names() -> None:
    assert cuda_errors.STICKY.issubset(cuda_errors.tables().by_name)


@pytest.mark.parametrize(
    ("text", "sticky"),
    [
        # a kernel's fault, then the same process fails to set the device: the fault is sticky, the echo is not
        (
            "CUDA error: an illegal memory access was encountered\n"
            "CUDA error: all CUDA-capable devices are busy or unavailable",
            True,
        ),
        ("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure", True),
        ("CUDA error: all CUDA-capable devices are busy or unavailable", False),
        ("CUDA error: out of memory", False),
    ],
)
def test_sticky_marks_a_kernel_fault_that_poisons_the_context(text: str, sticky: bool) -> None:
    f = parse(text)
    assert f is not None
    assert f.sticky is sticky


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Torch not compiled with CUDA enabled",
        "/usr/local/cuda/bin/nvcc -O3 kernel.cu",
        "out of memory",  # short messages only count next to a CUDA error word
        "invalid argument",
        "\xff\xfe cuda \x00 junk",
    ],
)
def test_no_false_positives(text: str) -> None:
    assert parse(text) is None


# Speed is measured by bench/bench_collectors.py; these check the results on large and noisy input
# (a regex that went quadratic would make them hang instead of passing).


def test_one_error_after_thirty_thousand_lines() -> None:
    noise = "".join(f"epoch {i}: loss 0.{i:03d} cuda:0 mem 1.2GiB\n" for i in range(30_000))
    assert parse(noise) is None
    line = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    alone, noisy = parse(line), parse(noise + line)
    assert alone is not None and (alone.error, alone.code) == ("cudaErrorIllegalAddress", 700)
    assert alone.lines == (1,)
    assert noisy == dataclasses.replace(alone, lines=(30_001,))


def test_noise_before_a_fixture_changes_only_the_line_numbers() -> None:
    noise = "".join(f"epoch {i}: loss 0.{i:03d} cuda:0 mem 1.2GiB\n" for i in range(2_000))
    logs = sorted(FIX.glob("*.log"))
    assert logs
    for log in logs:
        clean = parse(log.read_text())
        assert clean is not None and clean.error, log.name
        noisy = parse(noise + log.read_text())
        assert noisy == dataclasses.replace(clean, lines=tuple(n + 2_000 for n in clean.lines)), log.name


def test_the_copied_check_macro_prints_the_text_on_the_next_line() -> None:
    # CHECK_CUDA_ERROR / CHECK_LAST_CUDA_ERROR as many CUDA C++ projects copy it: "CUDA Runtime Error at: FILE:LINE",
    # then cudaGetErrorString's text and the call (lhnguyen102/cuTAGI#71), or the text alone
    from diagnose.collectors.cuda_errors import parse as parse_cuda

    f = parse_cuda("CUDA Runtime Error at: src/data_struct_cuda.cu:83\nout of memory cudaMalloc(&this->d_jcb, n)\n")
    assert f is not None and (f.error, f.api_call, f.lines) == ("cudaErrorMemoryAllocation", "cudaMalloc", (2,))
    f = parse_cuda("CUDA Runtime Error at: main.cu:40\ninvalid configuration argument\n")
    assert f is not None and f.error == "cudaErrorInvalidConfiguration"
    # a line that is not a runtime text under it says nothing
    assert parse_cuda("CUDA Runtime Error at: main.cu:40\nsee above\n") is None


def test_a_legacy_check_keeps_the_number_it_printed() -> None:
    # CUDA 10.1 renumbered the runtime's enum: a THC or Caffe check of an older runtime prints the old number
    # beside the message, and that is the one to quote (pytorch/pytorch#3865; daijifeng001/MNC#19)
    from diagnose.collectors.cuda_errors import parse as parse_cuda

    thc = "THCudaCheck FAIL file=THCTensorCopy.cu line=204 error=48 : no kernel image is available for execution on the device"
    f = parse_cuda(thc)
    assert f is not None and (f.error, f.code, f.code_old_numbering) == ("cudaErrorNoKernelImageForDevice", 48, True)
    caffe = "F1004 19:15:23.296233 20261 syncedmem.hpp:18] Check failed: error == cudaSuccess (77 vs. 0)  an illegal memory access was encountered"
    f = parse_cuda(caffe)
    assert f is not None and (f.error, f.code, f.code_old_numbering) == ("cudaErrorIllegalAddress", 77, True)
    # today's numbering, or no number printed: the table's code, nothing to say about it
    f = parse_cuda("RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert f is not None and (f.code, f.code_old_numbering) == (209, False)


def test_the_debugger_s_exception_names_the_fault_behind_a_launch_failure() -> None:
    # the host's "unspecified launch failure" first, then cuda-gdb's exception (corpus/holdout38, BLAST-WarpX/warpx#1153)
    text = (
        "amrex::Abort::0::CUDA error 719 in file AMReX_GpuDevice.cpp line 587: unspecified launch failure !!\n"
        "CUDA_EXCEPTION_2, Lane User Stack Overflow.\n"
    )
    facts = parse(text)
    assert facts is not None
    assert facts.error == "cudaErrorHardwareStackError"
    assert "cudaErrorLaunchFailure" in facts.errors
    # a launch failure alone stays one
    alone = parse("CUDA error 719: unspecified launch failure\n")
    assert alone is not None and alone.error == "cudaErrorLaunchFailure"
