"""Compiler, linker and offload-runtime families: each on the public report it was learned from
(corpus/holdout85 to holdout88) and on another wording of the same family (another compiler, another release,
another program's paths), so a rule that only learned one report's words fails here."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log

from diagnose.collectors import compile_api, environment
from diagnose.failure_lines import has_failure_line
from diagnose.report import next_check


def _answer(log: str) -> tuple[str, str | None]:
    """(category, rule) of kdiag's answer on ``log``: the category is ``unknown`` where it abstains."""
    report = classify_text(log)
    return report.category, None if report.diagnosis is None else report.diagnosis.rule


def _fix(log: str) -> str:
    report = classify_text(log)
    assert report.diagnosis is not None and report.diagnosis.findings
    return report.diagnosis.findings[0].fix


@pytest.mark.parametrize(
    "log",
    [
        # nvcc for Windows names a crashed component with its NTSTATUS (microsoft/onnxruntime#25239, #367)
        "'cudafe++' died with status 0xC0000005 (ACCESS_VIOLATION)\n",
        "CUDACOMPILE : nvcc error : 'cicc' died with status 0xC0000005 (ACCESS_VIOLATION) [D:\\b\\x.vcxproj]\n",
        # the same on Linux, by signal
        "nvcc error   : 'cicc' died due to signal 9 (Kill signal)\n",
    ],
)
def test_a_crashed_toolchain_component_is_the_toolchains(log: str) -> None:
    assert _answer(log) == ("environment", "ptxas-crashed")


@pytest.mark.parametrize(
    ("message", "name"),
    [
        (
            "\u2018struct cudaDeviceProp\u2019 has no member named \u2018computeMode\u2019",
            "cudaDeviceProp::computeMode",
        ),
        ("no member named 'clockRate' in 'cudaDeviceProp'", "cudaDeviceProp::clockRate"),
        ("'memoryClockRate': is not a member of 'cudaDeviceProp'", "cudaDeviceProp::memoryClockRate"),
        ("'cudaThreadSynchronize' was not declared in this scope", "cudaThreadSynchronize"),
        ("use of undeclared identifier 'cudaThreadSynchronize'", "cudaThreadSynchronize"),
    ],
)
def test_host_compilers_words_for_a_removed_cuda_api(message: str, name: str) -> None:
    got = compile_api.undefined_api_host(message)
    assert got is not None and got[0] == name and got[1] == "CUDA runtime" and got[2] is not None


def test_a_removed_cuda_api_in_a_cpp_file_is_version_skew() -> None:
    # pytorch/tensorpipe#464: g++ on a .cc file against CUDA 13.0's driver_types.h
    log = (
        "/var/tmp/tensorpipe/channel/cuda_ipc/context_impl.cc:236:15: error: \u2018struct cudaDeviceProp\u2019 has no "
        "member named \u2018computeMode\u2019\n"
    )
    assert _answer(log) == ("environment", "nvcc-removed-cuda-api")
    # clang's wording, another project
    log = "src/gpu_info.cpp:41:22: error: no member named 'clockRate' in 'cudaDeviceProp'\n"
    assert _answer(log) == ("environment", "nvcc-removed-cuda-api")


def test_a_missing_toolkit_header_cut_short_in_an_indented_build_log() -> None:
    # autowarefoundation/autoware_universe#13302 shortened the reason away; a build tool indents the line
    log = "  .../cuda_utils/thrust_utils.hpp:19: fatal error: thrust/count.h\n"
    assert _answer(log)[0] == "environment"


@pytest.mark.parametrize(
    ("log", "rule"),
    [
        (
            "clang-6.0: error: cannot find libdevice for sm_52. Provide path to different CUDA installation via "
            "--cuda-path, or pass -nocudalib to build without linking with libdevice.\n",
            "clang-cuda-libdevice-not-found",
        ),
        (
            "clang++: error: cannot find libdevice for sm_80; provide path to different CUDA installation via "
            "'--cuda-path', or pass '-nocudalib' to build without linking with libdevice\n",
            "clang-cuda-libdevice-not-found",
        ),
        (
            "clang++: error: cannot find CUDA installation; provide its path via '--cuda-path', or pass '-nocudainc' "
            "to build without CUDA includes\n",
            "clang-cuda-installation-not-found",
        ),
        (
            "clang-18: error: GPU arch sm_35 is supported by CUDA versions between 7.0 and 11.8 (inclusive), but "
            "installation at /usr/local/cuda is 12.4; use '--cuda-path' to specify a different CUDA install, pass a "
            "different GPU arch with '--cuda-gpu-arch', or pass '--no-cuda-version-check'\n",
            "clang-cuda-arch-outside-installation",
        ),
    ],
)
def test_clangs_cuda_installation_errors(log: str, rule: str) -> None:
    assert _answer(log) == ("environment", rule)


@pytest.mark.parametrize(
    "log",
    [
        # GCC's nvptx offload compiler and a distribution's default hardening flag (icl-utk-edu/slate#171)
        "lto1: error: '-fcf-protection=full' is not supported for this target\n",
        "lto1: error: '-fcf-protection=branch' is not supported for this target\n",
        # clang's driver for the CUDA device pass
        "clang-14: error: unsupported option '-fcf-protection=full' for target 'nvptx64-nvidia-cuda'\n",
        # a host type the device pass meets in libstdc++ (AdaptiveCpp/AdaptiveCpp#310)
        "/usr/include/c++/10.2.0/bits/std_abs.h:103:7: error: __float128 is not supported on this target\n",
    ],
)
def test_what_a_compiler_target_refuses_is_not_a_gpus_missing_feature(log: str) -> None:
    assert _answer(log)[0] == "environment"


def test_a_gpus_missing_feature_stated_on_this_device_is_still_an_arch_assumption() -> None:
    assert _answer("RuntimeError: FP4 is not available on this device\n")[0] == "runtime-assumption"
    assert _answer("ValueError: bf16 is not supported on this GPU\n")[0] == "runtime-assumption"


@pytest.mark.parametrize(
    ("log", "category"),
    [
        # well over 16 KiB and within 48 KiB on a compute capability 1.x target: an old GPU (openwall/john#395)
        (
            "ptxas error   : Entry function 'blowfish' uses too much shared data (0x801c bytes + 0x10 bytes system, 0x4000 max)\n",
            "runtime-assumption",
        ),
        # the whole 16 KiB the kernel was sized for, pushed over by the reserved bytes: the kernel's count
        (
            "ptxas error : Entry function 'kernel' uses too much shared data (0x4000 bytes + 0x10 bytes system, 0x4000 max)\n",
            "kernel-logic",
        ),
        # over the 48 KiB static limit of every later GPU: the kernel's
        (
            "ptxas error   : Entry function '_Z5stagePKfPf' uses too much shared data (0x10004 bytes, 0xc000 max)\n",
            "kernel-logic",
        ),
    ],
)
def test_static_shared_memory_decided_by_its_numbers(log: str, category: str) -> None:
    assert _answer(log)[0] == category


@pytest.mark.parametrize(
    "log",
    [
        "[hevc_nvenc @ 0x55ca461fa380] Cannot load libnvidia-encode.so.1\n",
        "[h264_cuvid @ 0x5600] Cannot load libnvcuvid.so.1\n",
        "OSError: libnvcuvid.so.1: cannot open shared object file: No such file or directory\n",
    ],
)
def test_the_drivers_video_libraries_point_at_the_containers_capabilities(log: str) -> None:
    assert _answer(log) == ("environment", "driver-video-library-not-loaded")
    assert "NVIDIA_DRIVER_CAPABILITIES" in _fix(log)


def test_a_plugin_missing_from_the_programs_own_install_is_not_a_cuda_component() -> None:
    # NVIDIA/cuda-quantum#3342: a backend's library named by a misspelt setting
    log = (
        'Error message: "Failed to open simulator backend library: /root/env/lib/python3.11/site-packages/bin/../lib/'
        'libnvqir-nvidia-mqpu.so: cannot open shared object file: No such file or directory."\n'
    )
    facts = environment.parse(log)
    assert facts is not None and facts.missing_library_in_package
    assert "program's own install folder" in _fix(log)
    # the nvidia-* wheels are under site-packages too, and theirs are CUDA's components
    wheel = (
        "OSError: /venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12: cannot open shared object file"
    )
    assert not environment.parse(wheel).missing_library_in_package


def test_the_launch_stubs_of_a_newer_nvcc_against_an_older_runtime() -> None:
    log = (
        'saxpy_cuda.o: In function "saxpy":\ntmpxft_000023f5_00000000-5_saxpy_cuda.cudafe1.cpp:(.text+0xef): undefined '
        'reference for "__cudaPushCallConfiguration"\n'
    )
    assert _answer(log) == ("environment", "host-link-launch-stubs-older-runtime")
    assert _answer("main.o: undefined reference to `__cudaPopCallConfiguration'\n")[0] == "environment"


def test_nvhpcs_severe_messages_wrapped_over_lines() -> None:
    log = (
        "NVFORTRAN-S-1061-Procedures called in a compute region must have acc routine\n"
        "information - s_mpi_abort\n  (m_variables_conversion.fpp: 1335)\n"
    )
    assert _answer(log) == ("kernel-logic", "nvhpc-compiler-source-error")
    # the accelerator's own failure to translate a region stays out (the device compiler may have failed)
    assert _answer("PGCC-S-0155-Compiler failed to translate accelerator region (x.c: 12)\n")[1] != (
        "nvhpc-compiler-source-error"
    )


def test_the_offload_runtime_that_cannot_read_its_image() -> None:
    log = (
        "PluginInterface --> Failure to check validity of image 0x5651b5deed20: Invalid CUDA addressing mode\n"
        "omptarget --> No RTL found for image 0x00005651b5dea120!\n"
    )
    assert _answer(log) == ("environment", "offload-no-image-for-device")
    # another image of a fat binary that no plugin takes, while this GPU's registers: no failure alone
    assert _answer("omptarget --> No RTL found for image 0x00005651b5dea120!\n")[1] != "offload-no-image-for-device"


def test_cccls_error_directive_and_not_its_older_pragma_message() -> None:
    log = "fatal error C1189: #error:  MSVC/cl.exe with traditional preprocessor is used.\n"
    assert _answer(log) == ("environment", "cccl-msvc-traditional-preprocessor")
    note = (
        "include/cuda/std/__cccl/preprocessor.h: MSVC/cl.exe with traditional preprocessor is used. This may lead to "
        "unexpected compilation errors.\n"
    )
    assert _answer(note)[1] != "cccl-msvc-traditional-preprocessor"


def test_ffmpegs_nvdec_capability_check() -> None:
    log = (
        "[hevc @ 0x555ae51e4900] Hardware is lacking required capabilities\n"
        "[hevc @ 0x555ae51e4900] Failed setup for format cuda: hwaccel initialisation returned error.\n"
    )
    assert _answer(log) == ("runtime-assumption", "nvdec-stream-outside-decoder-caps")
    assert _answer("[h264 @ 0x5] Video width 8192 not within range from 48 to 4096\n")[0] == "runtime-assumption"


def test_the_no_kernel_image_fix_names_the_gpus_architecture_when_the_log_names_the_gpu() -> None:
    log = (
        'Device 0: "GeForce RTX 2080 Ti"\nRuntimeError: CUDA error: no kernel image is available for execution on '
        "the device\n"
    )
    assert _answer(log) == ("environment", "cuda-no-kernel-image")
    assert "sm_75" in _fix(log) and 'TORCH_CUDA_ARCH_LIST="7.5"' in _fix(log)


def test_pytests_mark_on_a_failed_assertion_is_a_failure_line() -> None:
    log = "tests/test_histc.py:23:\n>       torch.testing.assert_close(\n            res, ref, atol=atol)\n"
    assert has_failure_line(log)
    assert not has_failure_line("tests/test_histc.py::test_histc PASSED\n")


def test_an_argument_refused_by_its_class_is_not_a_wrong_result() -> None:
    log = (
        "cutlass.base_dsl.common.DSLRuntimeError: DSLRuntimeError: expects argument #1 (A) to be "
        "<class 'cutlass.cute.typing.Tensor'>, but got <class 'torch.Tensor'>\n"
    )
    assert "compare the outputs bit for bit" not in (next_check(classify_text(log)) or "")


def test_a_jits_unresolved_symbols_abstain_with_the_runtime_first() -> None:
    # NVIDIA/cutlass#3329 (corpus/holdout85): the CuTe DSL's JIT without its runtime libraries
    report = classify_text(corpus_log("holdout85", "h85a-cutedsl-runtime-libs-not-found"))
    assert report.category == "unknown"
    assert report.diagnosis is not None and report.diagnosis.findings[0].category == "environment"
    # another JIT on ORC, the program's own helper undefined: the same family, both owners listed
    report = classify_text("JIT session error: Symbols not found: [ my_reduce_helper ]\n")
    assert report.category == "unknown"
    assert {f.category for f in report.diagnosis.findings} >= {"environment", "kernel-logic"}
