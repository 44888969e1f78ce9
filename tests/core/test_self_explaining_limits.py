"""Messages that state their cause, third round: a limit, a version or a contract the log itself names.

Each family is tested on a real log of a development set (corpus/holdout10: public reports, the thread named in
the case's ``source``) and on at least one other wording of the same family, taken from a tool's own message
text (its provenance is in the family's ``messages`` in diagnose/data/catalogue/). The second half covers
failures printed without an error word (an INFO line over a device limit, a debugger frame inside a kernel, an
IR parse error, an impossible reduction result): they are failures, and healthy output stays healthy."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided

from diagnose.failure_lines import failure_lines
from diagnose.report import next_check


def _case(case_id: str) -> str:
    return corpus_log("holdout10", case_id)


CASES = [
    # --- CuTe DSL's launch check: the shared memory asked and the arch's limit
    # holdout10 flash-attn-cute-sm89-smem-overflow-hdim256 (Dao-AILab/flash-attention#2750), wrapped over two lines
    (_case("flash-attn-cute-sm89-smem-overflow-hdim256"), "runtime-assumption", "smem-exceeds-device-limit"),
    # the same check on one line, another kernel on an sm_120 GPU (the CuTe DSL template, values filled in)
    (
        "Error: kernel 'k' launch shared memory exceeds current GPU arch sm_120a allowed. Allocated: 131072 bytes. "
        "Max: 101376 bytes.\n",
        "runtime-assumption",
        "smem-exceeds-device-limit",
    ),
    # --- NCCL's own checks (its duplicate-GPU check names the mapping, not whose it is: test_a_duplicate_gpu_...)
    # holdout10 nccl-2-25-rtx5090-max-shared-mem-exceeds-device (NVIDIA/nccl-tests#287): at INFO level only
    (_case("nccl-2-25-rtx5090-max-shared-mem-exceeds-device"), "environment", "library-too-old-for-gpu"),
    # the WARN form of src/enqueue.cc (ncclInitKernelsForDevice), with the arch
    (
        "node:12:40 [1] enqueue.cc:120 NCCL WARN cudaArch 1200 ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem "
        "79856\n",
        "environment",
        "library-too-old-for-gpu",
    ),
    # --- a memory-efficient attention kernel not built for this GPU (xFormers / PyTorch generated kernels)
    # holdout10 xformers-cutlass-fmha-built-for-sm75-run-on-sm86 (facebookresearch/xformers#1045)
    (_case("xformers-cutlass-fmha-built-for-sm75-run-on-sm86"), "environment", "no-kernel-image-for-arch"),
    # the backward kernels' printf (kernels/cutlassB_*.cu) and kernel_forward.h's fallback
    (
        "FATAL: kernel `fmha_cutlassB_f16_aligned_64x64_k32_seqaligned_sm70` is for sm70-sm74, but was built for sm86\n",
        "environment",
        "no-kernel-image-for-arch",
    ),
    ("FATAL: this function is for sm80, but was built for sm120\n", "environment", "no-kernel-image-for-arch"),
    # --- an assertion whose condition is a multiple of a power of two
    # holdout10 yak-kinfu-volume-dims-not-multiple-of-32 (ros-industrial-attic/yak#33): OpenCV 2.x-3.x CV_Assert
    (_case("yak-kinfu-volume-dims-not-multiple-of-32"), "runtime-assumption", "shape-not-multiple-of-block"),
    # OpenCV 4.x's format of the same macro, and glibc's assert
    (
        "OpenCV(4.5.4) pack.cpp:88: error: (-215:Assertion failed) cols % 16 == 0 in function 'pack'\n",
        "runtime-assumption",
        "shape-not-multiple-of-block",
    ),
    (
        "app: kern.cu:41: void run(int): Assertion `n % 64 == 0' failed.\n",
        "runtime-assumption",
        "shape-not-multiple-of-block",
    ),
    # --- NVML's "Function Not Found": a tool newer than the driver
    # holdout10 nvidia-docker-nvml-function-not-found-old-driver (NVIDIA/nvidia-docker#1280): libnvidia-container
    (_case("nvidia-docker-nvml-function-not-found-old-driver"), "environment", "driver-too-old"),
    # pynvml's exception class for the same return code
    ("pynvml.NVMLError_FunctionNotFound: Function Not Found\n", "environment", "driver-too-old"),
    # --- XLA's batched cuFFT plan over its scratch allocator's limit
    # holdout10 exojax-fp64-rfft-batched-cufft-plan-over-4gb (HajimeKawahara/exojax#277)
    (_case("exojax-fp64-rfft-batched-cufft-plan-over-4gb"), "runtime-assumption", "library-size-limit"),
    # the XLA plugin's capitalised wording (xla_cuda_plugin.so of jax-cuda12-pjrt 0.10.2), other sizes
    (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to initialize batched cufft plan with customized "
        "allocator: Allocating 4831838208 bytes exceeds the memory limit of 4294967296 bytes.\n",
        "runtime-assumption",
        "library-size-limit",
    ),
    # --- libNVVM refusing a front end's IR
    # holdout10 numba-056-nvvm-ir-version-mismatch-cuda12 (numba/numba#8715)
    (_case("numba-056-nvvm-ir-version-mismatch-cuda12"), "environment", "version-skew"),
    # the status name alone (nvvmGetErrorString of libnvvm.so)
    ("RuntimeError: nvvmCompileProgram failed: NVVM_ERROR_IR_VERSION_MISMATCH\n", "environment", "version-skew"),
    # holdout10 numba-052-nvvm70-cuda112-parse-expected-comma (numba/numba#6607): no error word at all
    (_case("numba-052-nvvm70-cuda112-parse-expected-comma"), "environment", "version-skew"),
    # another message of LLVM's IR parser inside libNVVM ("use of undefined value '%"), another module name
    ("<unnamed> (12, 8): parse use of undefined value '%.3'\n", "environment", "version-skew"),
]


@pytest.mark.parametrize(("text", "category", "mode"), CASES)
def test_a_message_that_states_its_cause_decides(text: str, category: str, mode: str) -> None:
    assert decided(text)[:2] == (category, mode)


@pytest.mark.parametrize(
    "text",
    [
        # holdout10 d-fine-nccl-duplicate-gpu-default-device (Peterande/D-FINE#289): the "Last error" names it
        _case("d-fine-nccl-duplicate-gpu-default-device"),
        # the WARN line of NCCL's src/init.cc alone, with its file prefix
        "host:1585:1585 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\n",
    ],
)
def test_a_duplicate_gpu_outranks_ncclinvalidusage(text: str) -> None:
    """ncclInvalidUsage alone leaves kdiag abstaining between collective misuse and device placement; the
    Duplicate GPU line names the rank-to-device mapping, and abstains on whose mapping it is (the program's device
    selection or the job's placement: one labelled case each) with the check that decides."""
    alone = classify_text(
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, invalid usage (run with "
        "NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n"
    )
    assert alone.category == "unknown"
    report = classify_text(text)
    assert report.status == "unknown"
    assert report.diagnosis is not None and str(report.diagnosis.rule).startswith("nccl-duplicate-gpu-as-")
    assert report.diagnosis.failure_mode == "ambiguous"
    assert "local rank" in (next_check(report) or "")


@pytest.mark.parametrize(
    "text",
    [
        # a size check that is not a power-of-two block: evenness
        "app: a.c:3: main: Assertion `n % 2 == 0' failed.\n",
        # the libNVVM verifier's own lines are another family; a file position without "parse" is no parse error
        "kernel.cu (12, 8): note: inlined here\n",
    ],
)
def test_near_misses_do_not_decide_these_families(text: str) -> None:
    assert decided(text)[2] not in {"assert-size-multiple-of-block", "libnvvm-ir-parse-error"}


# --- failures printed without an error word -------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        # holdout10 nccl-2-25-rtx5090-max-shared-mem-exceeds-device, line 10: an INFO line over a device limit
        "GENOA-06:4766:4780 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856",
        # holdout10 cmssw-ecal-gpu-unpacker-hang-corrupted-tower-header: cuda-gdb stopped inside a kernel
        "#0  ecal::raw::kernel_unpack_test<32><<<(54,1,1),(32,1,1)>>> () at UnpackGPU.cu:172",
        # the same frame shape with an address (cuda-gdb's "#1  0x... in f<<<...>>>")
        "#1  0x00007fffd3a8e0 in add_kernel<<<(4096,1,1),(256,1,1)>>> (a=0x7fffc8000000, n=1048576) at add.cu:12",
        # holdout10 numba-052-nvvm70-cuda112-parse-expected-comma: libNVVM's parse error
        "<unnamed> (81, 19): parse expected comma after load's type",
        # holdout10 jax-max-negative-zero-xla-gpu-miscompile: a maximum printed as -inf
        "jnp.max(v[:8193]) -> -inf",
        # a sum printed infinite by another framework's print
        "torch.sum(x) = inf",
    ],
)
def test_a_failure_without_an_error_word_is_a_failure_line(line: str) -> None:
    assert failure_lines(line)


@pytest.mark.parametrize(
    "line",
    [
        # a warning that says what it did instead (a fallback) stays healthy
        "W1203 12:00:00.1 12 x.cc:3] 65536 bytes exceeds the device limit of 49152; falling back to the generic kernel",
        "NCCL INFO requested 9000 exceeds device limit 8000, clamping to 8000",
        # an INFO line with figures under their limit, a printed finite maximum, a mask value
        "NCCL INFO ncclMaxSharedMem 65536 of device maxSharedMem 101376",
        "jnp.max(v[:8192]) -> -0.000",
        "mask fill value = -inf",
        # a gdb frame of host code
        "#0  main () at main.cpp:12",
    ],
)
def test_healthy_lines_stay_healthy(line: str) -> None:
    assert failure_lines(line) == []


def test_an_impossible_reduction_is_not_called_healthy() -> None:
    """holdout10 jax-max-negative-zero-xla-gpu-miscompile: no rule decides, but the log shows a failure, and the
    check compares with the CPU at the size where the result turns."""
    report = classify_text(_case("jax-max-negative-zero-xla-gpu-miscompile"))
    assert report.category == "unknown"
    check = next_check(report) or ""
    assert "CPU" in check and "smallest size" in check


def test_a_debugger_frame_in_a_kernel_is_not_called_healthy() -> None:
    """holdout10 cmssw-ecal-gpu-unpacker-hang-corrupted-tower-header: the check asks where the threads wait."""
    report = classify_text(_case("cmssw-ecal-gpu-unpacker-hang-corrupted-tower-header"))
    assert report.category == "unknown"
    assert "info cuda threads" in (next_check(report) or "")
