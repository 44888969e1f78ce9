"""What an expert review of first answers on real logs asked for: a GPU below what the toolkit still builds
for, a stale cuDNN among the owners of a bare BAD_PARAM, the checks of a bare illegal address, and values in
the decisive line read rather than left out."""

from __future__ import annotations

from typing import Any

from diagnose import classify_log
from diagnose.collectors import cuda_errors, symbol_lookup


def _dict(log: str) -> dict[str, Any]:
    return classify_log(log).to_dict()


# --- a GPU whose architecture recent toolkits dropped ---------------------------------------------------------

# xmrig/xmrig-nvidia#132 (corpus/holdout36): the miner's own GPU list prints the capability as "arch:21"
XMRIG = (
    " * GPU #0:       NVS 310 @ 1046/875 MHz 64x2 8x25 arch:21 SMX:1\n"
    '[CUDA] Error gpu 0: <cryptonight_extra_cpu_prepare>:259 "no kernel image is available for execution on the device"\n'
)


def test_the_printed_capability_and_the_release_that_dropped_it_are_read() -> None:
    f = cuda_errors.parse(XMRIG)
    assert f is not None
    assert (f.device_cc, f.device_cc_removed_in) == (2.1, "9.0")
    assert 1 in f.lines  # the GPU's line is cited beside the error


def test_a_gpu_no_recent_toolkit_builds_for_gets_no_rebuild_advice() -> None:
    d = _dict(XMRIG)
    assert d["rule"] == "cuda-no-kernel-image-gpu-arch-dropped"
    assert d["category"] == "environment"
    assert "with CUDA 9.0 or newer, no rebuild for this GPU can work" in d["fix"]
    assert "2.1 (sm_21)" in d["what"]


def test_a_capability_the_toolkit_still_builds_for_keeps_the_missing_arch_answer() -> None:
    log = XMRIG.replace("arch:21", "arch:75")
    assert _dict(log)["rule"] != "cuda-no-kernel-image-gpu-arch-dropped"


def test_tensorflow_device_lines_print_the_capability() -> None:
    assert symbol_lookup.printed_device_ccs(
        "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10 MB memory) -> physical GPU "
        "(device: 0, name: Tesla K80, pci bus id: 0000:00:1e.0, compute capability: 3.7)"
    ) == (3.7,)


def test_invalid_device_function_alone_names_both_readings_and_the_check() -> None:
    # davisking/dlib#2290 (corpus/holdout35): a CC 2.1 GPU under dlib, whose minimum is sm_50
    d = _dict(
        "Failure message from test: Error while calling cudaOccupancyMaxPotentialBlockSize(&num_blocks,&num_threads,K)"
        " in file /build/dlib/dlib/cuda/cuda_utils.h:186. code: 8, reason: invalid device function\n"
    )
    assert d["category"] == "environment"
    assert "Two readings fit" in d["fix"]
    assert "compute_cap" in d["fix"] and "documented minimum" in d["fix"]


# --- cuDNN's BAD_PARAM: a stale cuDNN is one owner --------------------------------------------------------------


def test_bad_param_lists_the_installation_and_checks_the_loaded_cudnn_first() -> None:
    # JuliaGPU/CuArrays.jl#531 (corpus/holdout35): an old cuDNN from CUDA_PATH
    d = _dict("  CUDNNError(code CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_BAD_PARAM)\n  Stacktrace:\n")
    assert d["status"] == "unknown"
    assert "environment" in {a["category"] for a in d["alternatives"]}
    assert d["next_check"].startswith("Before changing a parameter, check which cuDNN the process loaded")
    assert "torch.backends.cudnn.version()" in d["next_check"]


# --- the stock illegal-address text -------------------------------------------------------------------------------


def test_illegal_address_checks_name_32_bit_offsets_inputs_and_clocks() -> None:
    d = _dict("RuntimeError: CUDA error: an illegal memory access was encountered\n")
    check = d["next_check"]
    assert "times a stride computed in `int`" in check and "else the kernel's" in check
    assert "If one input fails and another works, compare them" in check
    assert "overclocked memory or cores (reset to stock clocks)" in check
    assert len(check.split(" Not checked here:")[0].split()) < 250


# --- values in the decisive line ------------------------------------------------------------------------------


def test_pytorch_figures_that_do_not_decide_are_shown_not_called_missing() -> None:
    # ranahanocka/MeshCNN#105 (corpus/holdout36): PyTorch's older message, total/allocated/free/reserved
    d = _dict(
        "RuntimeError: CUDA out of memory. Tried to allocate 1.62 GiB (GPU 0; 8.00 GiB total capacity; 3.97 GiB "
        "already allocated; 1.25 GiB free; 4.68 GiB reserved in total by PyTorch).\n"
    )
    assert d["rule"] == "oom-figures-undecided"
    assert "without figures" not in d["title"]
    # an abstention gives the figures in its check; an answer (its calibrated record on the labelled corpus is the
    # problem size's) in what it says, with the same deciding rerun as its fix
    shown = d["next_check"] or d["what"]
    assert "8 GiB" in shown and "2.1 GiB was neither free nor PyTorch's" in shown
    assert "half the batch size" in (d["next_check"] or d["fix"])


def test_an_address_a_few_dozen_kib_above_null_is_an_unset_pointer_not_an_overrun() -> None:
    # kokkos/kokkos#5596 (corpus/holdout35): a lock array never allocated in a debug shared build
    log = (
        "========= Invalid __global__ write of size 4\n"
        "=========     at 0x000000d0 in /lammps_master/lib/kokkos/tpls/desul/src/Lock_Array_CUDA.cpp:31:desul::"
        "_GLOBAL__N__50_tmpxft_0001a4f7_00000000_7_Lock_Array_CUDA_cpp1_ii_4d2bf3a0::init_lock_arrays_cuda_kernel(void)\n"
        "=========     by thread (238,0,0) in block (80,0,0)\n"
        "=========     Address 0x000143b8 is out of bounds\n"
    )
    d = _dict(log)
    assert d["category"] == "kernel-logic"
    assert d["fix"].startswith("The address, 0x000143b8, is a null pointer plus an offset")
    assert "bounds guard helps" in d["fix"] and "if (i < n)" not in d["fix"]


THEANO = (
    "RuntimeError: Cuda error: kSoftmax_node_3c4acb89aba08a5237cd1d1814011c3d_0: invalid argument.\n"
    "Used 1 blocks, 512 threads 65536 bytes of shared memory\n"
)


def test_a_launch_printed_with_its_shared_memory_is_read_and_compared_with_48_kib() -> None:
    # Theano/Theano#1302 (corpus/holdout36): GpuSoftmax sizes its shared memory from the whole row
    d = _dict(THEANO)
    assert d["status"] == "unknown"
    assert d["rule"] == "concept-launch-smem-over-default-invalid-value"
    assert {a["category"] for a in d["alternatives"][:2]} == {"kernel-logic", "runtime-assumption"}
    assert "64 KiB (65,536 bytes)" in d["next_check"]
    assert any(e["line"] == 2 for e in d["evidence"])


def test_a_launch_within_48_kib_is_not_read_as_over_the_default() -> None:
    d = _dict(THEANO.replace("65536 bytes", "32768 bytes"))
    assert d["rule"] != "concept-launch-smem-over-default-invalid-value"


# --- a launch refused inside a program's own assertion ------------------------------------------------------------


def test_an_asserted_launch_call_lists_its_owners_and_asks_for_the_launch_figures() -> None:
    # shader-slang/slangpy#830 (corpus/holdout36): zero thread groups for an empty input
    d = _dict(
        "python: .../cuda-command.cpp:480: ... Assertion `SLANG_CUDA_ASSERT_ON_FAIL(cuLaunchKernel(...))' failed.\n"
        "Aborted (SIGABRT)\n"
    )
    assert d["status"] == "unknown"
    assert d["alternatives"][0]["category"] == "kernel-logic"
    assert "grid and block dimensions" in d["next_check"] and "zero dimension" in d["next_check"]


def test_an_assertion_on_another_call_is_not_a_launch() -> None:
    d = _dict("app: main.cu:12: int main(): Assertion `cudaMalloc(&p, n) == cudaSuccess' failed.\n")
    assert not (d["rule"] or "").startswith("assert-kernel-launch-call-failed")


def test_a_named_toolkit_that_dropped_the_gpu_says_so_outright() -> None:
    d = _dict("Cuda compilation tools, release 9.1, V9.1.85\n" + XMRIG)
    assert d["rule"] == "cuda-no-kernel-image-gpu-arch-dropped"
    assert d["fix"].startswith("The build's toolkit, CUDA 9.1, cannot target this GPU")
