"""Failures printed by the layers around CUDA: OpenCL's statuses and build logs, ptxas on PTX that another compiler
wrote (libdevice's __nv_* functions, a code generator's call), an LLVM that predates the GPU, a shell without a GPU
toolkit's program, Cython's binary-compatibility checks, XLA's command buffers, RMM's and HeavyDB's out-of-memory
reports, Thrust's CUB version check and a crash while Python loads a compiled library.

Each family is tested on the log of a development case (corpus/holdout74, corpus/holdout75: public reports, the
thread named in each case's ``source``) and on the other wordings the tools' own files give it (the provenance is in
diagnose/data/catalogue/), with the near misses that must not be read as it."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

from diagnose.collectors.oom import parse as parse_oom
from diagnose.failure_lines import is_failure_line
from diagnose.report import next_check


def _h74(case_id: str) -> str:
    return corpus_log("holdout74", case_id)


def _h75(case_id: str) -> str:
    return corpus_log("holdout75", case_id)


# --- failure lines that carry no "error:" -------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "*** Internal error in package accelerate ***",
        "INTERNAL ERROR: the solver did not converge",
        "Command 'hipcc' not found, but can be installed with:",
        "bash: ptxas: command not found",
        "sh: 1: nvc++: not found",
        "'icpx' is not recognized as an internal or external command,",
        "Benchmarking: pgpwde-opencl [SHA1 OpenCL]... OpenCL UNKNOWN OPENCL ERROR (-9999) error in common-opencl.c:1820",
        "ERROR: clFinish() : -36 : CL_INVALID_COMMAND_QUEUE",
        "clEnqueueReadBuffer returned CL_OUT_OF_RESOURCES (-5)",
    ],
)
def test_statements_of_failure_without_an_error_severity_are_failure_lines(line: str) -> None:
    assert is_failure_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "internal error counters: 0",
        "  Extensions                                      cl_khr_global_int32_base_atomics cl_khr_fp64",
        "  Device Type                                     CL_DEVICE_TYPE_GPU",
        "'sm_75' is not a recognized processor for this target (ignoring processor)",
    ],
)
def test_healthy_lines_of_the_same_tools_are_not_failure_lines(line: str) -> None:
    assert not is_failure_line(line)


# --- decided families ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "category", "mode", "rule"),
    [
        # corpus/holdout74 (darktable-org/darktable#9528): the NVIDIA 470 driver's OpenCL compiler
        (
            _h74("h74b-darktable-nvidia-470-ptxas-unresolved-nv-fast-log2f"),
            "environment",
            "compiler-bug",
            "ptxas-unresolved-libdevice-function",
        ),
        ("ptxas fatal   : Unresolved extern function '__nv_powf'\n", "environment", "compiler-bug", None),
        # corpus/holdout74 (ROCm/hip#3310): HIP on the NVIDIA platform without ROCm's bin on PATH
        (
            _h74("h74b-hip-nvidia-hipcc-not-on-path"),
            "environment",
            "toolchain-missing",
            "gpu-toolchain-command-not-found",
        ),
        ("make: hipcc: command not found\n", "environment", "toolchain-missing", "gpu-toolchain-command-not-found"),
        # corpus/holdout74 (AccelerateHS/accelerate#433): LLVM 6 asked for sm_75, then the program's internal error
        (
            _h74("h74a-accelerate-llvm6-sm75-rtx2070"),
            "environment",
            "toolchain-too-old",
            "concept-llvm-processor-unknown-then-failure",
        ),
        # corpus/holdout75 (rapidsai/rmm#1068): Cython's signature check at import
        (_h75("h75b-rmm-import-cuda-python-wrong-signature"), "environment", "version-skew", "cython-abi-mismatch"),
        (
            "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got "
            "88 from PyObject\n",
            "environment",
            "version-skew",
            "cython-abi-mismatch",
        ),
        # corpus/holdout75 (netket/netket#2248): XLA's command buffer refused a memset node
        (
            _h75("h75c-netket-multigpu-xla-command-buffer-memset"),
            "environment",
            "compiler-bug",
            "xla-command-buffer-graph-failed",
        ),
        # corpus/holdout75 (spirit-code/spirit#602): a bundled CUB against the toolkit's Thrust
        (
            _h75("h75d-spirit-bundled-cub-vs-cuda114-thrust"),
            "environment",
            "version-skew",
            "thrust-cub-version-mismatch",
        ),
        # corpus/holdout75 (NVIDIA/cutlass#3144): both numbers of a shared-memory check, on a GPU smaller than others
        (
            _h75("h75d-cutlass-sm121-grouped-gemm-smem-carveout"),
            "runtime-assumption",
            "smem-exceeds-device-limit",
            "concept-smem-over-device",
        ),
        # corpus/holdout75 (pytorch/ao#2901): an abort inside torch.ops.load_library
        (
            _h75("h75a-torchao-import-abort-torch-abi-skew"),
            "environment",
            "version-skew",
            "py-crash-while-loading-native-library",
        ),
    ],
)
def test_families_decide(text: str, category: str, mode: str, rule: str | None) -> None:
    got = decided(text)
    assert got[:2] == (category, mode)
    if rule is not None:
        assert got[2] == rule


def test_unresolved_functions_other_than_libdevice_keep_their_candidates() -> None:
    # corpus/holdout74 (AdaptiveCpp/AdaptiveCpp#815): a host runtime's constructor reached from device code; the
    # rules abstain between the build's separate compilation and the code (the text prior may still lean)
    text = "ptxas fatal   : Unresolved extern function '_ZN7hipsycl2rt24runtime_keep_alive_tokenC1Ev'\n"
    status, category, _rule = verdict(text)
    assert status == "unknown" and category == "unknown"
    check = next_check(classify_text(text)) or ""
    assert "host" in check and "-rdc=true" in check


def test_no_kernel_image_beside_a_ptxas_failure_is_not_read_as_the_arch_list() -> None:
    # corpus/holdout74 (AccelerateHS/accelerate#350): the code generator's llabs call did not assemble
    report = classify_text(_h74("h74a-accelerate-ptx-llabs-unresolved-pascal"))
    d = report.diagnosis
    assert d is not None
    assert d.rule not in ("cuda-no-kernel-image", "cudart-no-kernel-image-for-device")
    # the runtime's message alone is still the architecture list
    assert decided("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")[1] == (
        "no-kernel-image-for-arch"
    )


@pytest.mark.parametrize(
    ("text", "family"),
    [
        (_h74("h74b-oclhashcat-invalid-command-queue-stale-kernels"), "opencl-invalid-command-queue"),
        (_h74("h74b-opencl-brute-nvidia-generic-address-space"), "opencl-build-program-failure"),
        ("pyopencl._cl.RuntimeError: clEnqueueReadBuffer failed: OUT_OF_RESOURCES\n", "opencl-out-of-resources"),
    ],
)
def test_opencl_statuses_abstain_with_the_check_that_decides(text: str, family: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    # one of the family's candidates leads (which one, the calibration decides)
    assert report.diagnosis is not None and str(report.diagnosis.rule).startswith(family + "-as-")
    assert next_check(report)


def test_an_opencl_error_with_no_family_gets_the_opencl_check() -> None:
    # corpus/holdout74 (openwall/john#2710): NVIDIA's -9999 after a kernel's misaligned store
    report = classify_text(_h74("h74b-john-pgpwde-opencl-misaligned-store-nvidia"))
    assert report.status == "unknown"
    assert report.hint is not None and report.hint.kind == "opencl-error"
    assert "one kernel" in report.hint.check


def test_opencl_platform_not_found_is_the_machine() -> None:
    assert decided("pyopencl._cl.LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR\n")[:2] == (
        "environment",
        "no-gpu-visible",
    )


# --- near misses --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # Cython before 0.29 warned about the same size change and the program went on
        "RuntimeWarning: numpy.dtype size changed, may indicate binary incompatibility. Expected 96, got 88\n",
        # LLVM's warning alone: the run can still succeed with a generic target
        "'sm_90a' is not a recognized processor for this target (ignoring processor)\n",
        # PyOpenCL's report of a build that succeeded with warnings (pyopencl/_monkeypatch.py)
        "Build on <pyopencl.Device 'NVIDIA GeForce RTX 3070' on 'NVIDIA CUDA'> succeeded, but said:\n\n"
        "<kernel>:12:5: warning: unused variable 'tmp'\n",
    ],
)
def test_warnings_of_the_same_tools_are_no_failure(text: str) -> None:
    assert classify_text(text).status == "no-failure"


def test_a_kernel_not_configured_for_its_shared_memory_is_not_the_device_limit() -> None:
    # torch 2.13.0 torch/cuda/_utils.py: the limit named is the kernel's configuration, not the device's
    text = (
        "RuntimeError: Kernel requires 65536 bytes of shared memory (>= 48KB), but only 49152 bytes configured. "
        "Call kernel.set_shared_memory_config(shared_mem) after compilation and before launching the kernel.\n"
    )
    assert decided(text)[1] != "smem-exceeds-device-limit"


@pytest.mark.parametrize(
    ("line", "requested"),
    [
        # corpus/holdout75 (rapidsai/dask-cuda#443): RMM's pool resource (RMM_FAIL, rmm::out_of_memory)
        (
            "distributed.utils - ERROR - std::bad_alloc: out_of_memory: RMM failure at:~/miniconda3/envs/test_dev/"
            "include/rmm/mr/device/pool_memory_resource.hpp:183: Maximum pool size exceeded",
            None,
        ),
        # corpus/holdout75 (heavyai/heavydb#733): HeavyDB's buffer manager
        ("BufferMgr.cpp:416 ALLOCATION failed to find 2452160512B throwing out of memory GPU_MGR:0", None),
    ],
)
def test_memory_managers_out_of_memory_reports_are_out_of_memory(line: str, requested: float | None) -> None:
    facts = parse_oom(line)
    assert facts is not None and facts.kind == "generic"
    assert facts.requested_bytes == requested


# --- after the reviews of holdout76/77's first answers -----------------------------------------------------------


def _h76(case_id: str) -> str:
    return corpus_log("holdout76", case_id)


def _h77(case_id: str) -> str:
    return corpus_log("holdout77", case_id)


@pytest.mark.parametrize(
    ("text", "signal"),
    [
        # corpus/holdout77 (isaac-sim/IsaacLab#7139): bash in a Chinese locale
        (_h77("h77a-isaaclab-driver-595-segfault-rtx3060"), "SIGSEGV"),
        # corpus/holdout74 (intel/llvm#14169): in Spanish
        (_h74("h74b-dpcpp-cuda-compile-program-error-gtx1650ti"), "SIGABRT"),
        ("Speicherzugriffsfehler (Speicherabzug geschrieben)\n", "SIGSEGV"),
    ],
)
def test_a_crash_reported_in_the_users_language_is_a_crash(text: str, signal: str) -> None:
    report = classify_text(text)
    assert report.status != "no-failure"
    assert report.evidence is not None and report.evidence.exit is not None
    assert report.evidence.exit.signal == signal


@pytest.mark.parametrize(
    ("text", "category", "mode", "rule"),
    [
        # corpus/holdout74 (diku-dk/futhark#1117): Futhark's CUDA_SUCCEED, the call on the line above the status
        (
            _h74("h74a-futhark-cuinit-999-after-upgrade"),
            "environment",
            "no-gpu-visible",
            "cuda-unknown-error-at-initialisation",
        ),
        # corpus/holdout74 (stereolabs/zed-ros2-wrapper#113): the driver's libcuda absent from the build image
        (
            _h74("h74d-zed-ros2-orin-base-image-without-cuda"),
            "environment",
            "library-missing",
            "ld-cuda-driver-library-needed-not-found",
        ),
        # corpus/holdout77 (AMReX-Astro/Castro#2262): a static library's cuBLAS calls, no -lcublas
        (
            _h77("h77b-castro-hypre-cuda-undefined-cublas"),
            "environment",
            "library-missing",
            "host-link-cuda-library-symbols-undefined",
        ),
        # corpus/holdout76 (hpcaitech/Open-Sora#460): the driver's NVML older than the function torch looks up
        (_h76("h76c-opensora-nvml-nvlink-symbol-old-driver"), "environment", "driver-too-old", None),
        # corpus/holdout77 (fla-org/flash-linear-attention#58): a Triton compiler assertion whose text says "only
        # supported on Ampere" is the compiler's
        (
            _h77("h77d-fla-simple-gla-h100-mma-layout-assert"),
            "environment",
            "compiler-bug",
            "compiler-internal-assertion",
        ),
        # corpus/holdout76 (k2-fsa/k2#1158): a build script's stated CUDA mismatch
        (_h76("h76a-k2-build-torch-cu117-vs-cuda102"), "environment", "version-skew", None),
        # corpus/holdout76 (daerduoCarey/structurenet#13): nvcc older than the option torch's builder passes
        (_h76("h76b-structurenet-chamfer-nvcc-unknown-option-dependencies"), "environment", "version-skew", None),
        # corpus/holdout76 (visualbruno/ComfyUI-Trellis2#30): torch's DispatchStub without a CUDA kernel
        (
            _h76("h76c-comfy-trellis2-dispatchstub-cu129-vs-cu128-wheels"),
            "environment",
            "version-skew",
            "torch-dispatch-stub-missing-kernel",
        ),
        # corpus/holdout77 (NVIDIA-Omniverse/IsaacAutomator#40): Omniverse's driver check, below its minimum
        (_h77("h77a-isaacautomator-aws-driver-535-too-old"), "environment", "driver-too-old", None),
        # corpus/holdout75 (NVIDIA/apex#267): a member of PyTorch's C++ API the installed torch no longer has
        (_h75("h75a-apex-type-shim-scalartype-torch-master"), "environment", "version-skew", None),
    ],
)
def test_stated_causes_decide(text: str, category: str, mode: str, rule: str | None) -> None:
    got = decided(text)
    assert got[:2] == (category, mode)
    if rule is not None:
        assert got[2] == rule


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # corpus/holdout77 (leggedrobotics/legged_gym#64, isaac-sim/IsaacGymEnvs#31): PhysX's own kernels
        (_h77("h77a-legged-gym-physx-contact-pairs-rtx3060"), "physx-internal-cuda-error"),
        (_h77("h77a-isaacgymenvs-dof-velocity-input-physx-cuda-error"), "physx-internal-cuda-error"),
        # corpus/holdout77 (isaac-sim/IsaacLab#4011): the NCCL watchdog's sticky fault
        (_h77("h77a-isaaclab-multigpu-nccl-illegal-address"), "torch-nccl-watchdog-cuda-error"),
        # corpus/holdout76 (sdbds/TRELLIS-for-windows#5): 712 GiB on a 24 GiB GPU, the Markdown bold taken off
        (_h76("h76c-trellis-windows-dgr-sm89-only-bogus-oom"), "oom-request-beyond-any-gpu"),
        # corpus/holdout77 (CannyLab/tsne-cuda#68): Faiss's temporary memory could not be reserved
        (
            _h77("h77c-tsnecuda-faiss-stack-alloc-gpu-memory-taken"),
            "faiss-gpu-temp-memory-reserve-failed-as-environment",
        ),
    ],
)
def test_failures_inside_closed_libraries_abstain_with_their_own_check(text: str, rule: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.rule == rule
    check = next_check(report) or ""
    assert check and "compute-sanitizer" not in check.split(".")[0]


def test_an_opencv_exception_is_not_a_compiler_error() -> None:
    # corpus/holdout74 (opencv/opencv#14827): cv::Exception spells its source position as gcc does
    report = classify_text(_h74("h74d-opencv-dnn-cuda-jetson-hostregister-unsupported"))
    assert report.evidence is not None
    assert report.evidence.compiler is None or not report.evidence.compiler.errors
    assert report.hint is None or report.hint.kind != "compiler-error"


def test_a_library_status_under_a_cuda_check_macro_is_the_librarys() -> None:
    # corpus/holdout75 (NVIDIA/cuda-samples#20): checkCudaErrors printing nvJPEG's status
    report = classify_text(_h75("h75b-nvjpeg-encoder-tiny-image-optimized-huffman"))
    assert report.hint is not None and report.hint.kind == "library-status"


# --- learned from holdout78/79 ---------------------------------------------------------------------------------


def _h79(case_id: str) -> str:
    return corpus_log("holdout79", case_id)


@pytest.mark.parametrize(
    ("text", "category", "mode", "rule"),
    [
        # corpus/holdout79 (COPT-Public/cuPDLP-C#29): a cuSPARSE enum constant an older toolkit does not declare
        (
            _h79("h79a-cupdlpc-cusparse-spmv-alg2-undefined"),
            "environment",
            "version-skew",
            "nvcc-undefined-library-api-as-environment",
        ),
        # corpus/holdout79 (NVIDIA/cuopt#575): LeakSanitizer's report
        (_h79("h79a-cuopt-pdlp-cusparse-descriptor-leak"), "kernel-logic", "memory-leak", "lsan-memory-leak"),
        # corpus/holdout79 (KellerJordan/modded-nanogpt#145): a Hub kernel without an aarch64 build
        (
            _h79("h79b-fa3-hub-kernel-no-aarch64-build-gh200"),
            "environment",
            "library-missing",
            "hf-kernel-no-build-for-platform",
        ),
        # corpus/holdout79 (turboderp-org/exllamav2#434): Windows' form of an undefined symbol
        (
            _h79("h79c-exllamav2-wheel-torch-mismatch-dll-load"),
            "environment",
            "version-skew",
            "python-windows-extension-procedure-not-found",
        ),
        (
            "ImportError: DLL load failed while importing _C: The specified module could not be found.\n",
            "environment",
            "library-missing",
            "python-windows-extension-module-not-found",
        ),
    ],
)
def test_families_of_holdout78_79_decide(text: str, category: str, mode: str, rule: str) -> None:
    assert decided(text) == (category, mode, rule)


@pytest.mark.parametrize(
    ("line", "requested", "free"),
    [
        # corpus/holdout78 (PaddlePaddle/PaddleDetection#3100): Paddle's allocator, sizes as it prints them
        (
            "Out of memory error on GPU 0. Cannot allocate 18.062744MB memory on GPU 0, available memory is only "
            "17.537501MB.",
            18.062744 * 2**20,
            17.537501 * 2**20,
        ),
        # corpus/holdout78 (scverse/rapids-singlecell#631): RMM's failed cudaMalloc with its size
        (
            "MemoryError: std::bad_alloc: out_of_memory: CUDA error (failed to allocate 88577278284 bytes) at: C",
            88577278284.0,
            None,
        ),
    ],
)
def test_more_allocators_out_of_memory_words(line: str, requested: float, free: float | None) -> None:
    facts = parse_oom(line)
    assert facts is not None
    assert facts.requested_bytes == pytest.approx(requested)
    assert facts.free_bytes == (pytest.approx(free) if free is not None else None)


def test_a_batched_factorisation_that_failed_on_its_input_is_the_inputs() -> None:
    # corpus/holdout79 (locuslab/qpth#22): torch 0.4's btrifact on a matrix that is not positive definite
    assert decided(_h79("h79a-qpth-batched-lu-non-spd-q"))[:2] == ("runtime-assumption", "input-values-unsupported")


def test_the_nccl_watchdog_timeout_abstains_with_the_ranks_check() -> None:
    # corpus/holdout78 (jpata/particleflow#390): only the watchdog's C++ frames of the timeout; rank 0 alone evaluated
    report = classify_text(corpus_log("holdout78", "h78b-particleflow-rank0-only-eval-nccl-watchdog-timeout"))
    assert report.status == "unknown"
    assert report.diagnosis is not None and str(report.diagnosis.rule).startswith("torch-nccl-watchdog-timeout-as-")
    assert "same collective" in (next_check(report) or "")
