"""Failures of the tools around a kernel rather than the kernel: NVIDIA's profilers and CUPTI, NVML as NVIDIA's Go
tools print its statuses, CMake's CUDA language support, nvcc's probe of its host compiler, Triton's compile cache
shared by several processes, CuPy's and Numba's APIs missing from the installed release, a CUDA install's header
named by its path, a warning's text that arrived as a raised exception, and a Pallas grid query outside its kernel.

Each family is tested on the log of a development case (corpus/holdout82 to holdout84: public reports, the
thread named in each case's ``source``) and on the other wordings the tools' own files give it (the provenance is in
diagnose/data/catalogue/), with the near misses that must not be read as it."""

from __future__ import annotations

import functools

import pytest
from corpus_logs import classify_text, corpus_log, decided

_h82, _h83, _h84 = (functools.partial(corpus_log, f"holdout{n}") for n in (82, 83, 84))


@pytest.mark.parametrize(
    ("text", "category", "mode", "rule"),
    [
        # corpus/holdout83 (a lab machine's nvprof): the counters withheld from non-administrators
        (_h83("h83b-nvprof-errnvgpuctrperm-lab-machine"), "environment", "permission-denied", None),
        # Nsight Compute's form of the same documented code, behind its "==ERROR==" banner
        (
            "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters"
            " on the target device 0. For instructions on enabling permissions, see"
            " https://developer.nvidia.com/ERR_NVGPUCTRPERM\n",
            "environment",
            "permission-denied",
            "profiler-counters-permission",
        ),
        (
            "cuptiProfilerInitialize failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES\n",
            "environment",
            "permission-denied",
            None,
        ),
        # corpus/holdout83: nvprof on an Ampere GPU
        (_h83("h83b-nvprof-unsupported-cc80-windows"), "environment", "profiler-unsupported-device", None),
        # corpus/holdout83 (HPCToolkit): a CUPTI newer than the driver
        (_h83("h83b-hpctoolkit-cupti11-on-cuda10-driver"), "environment", "version-skew", "cupti-not-initialized"),
        # corpus/holdout82 (NVIDIA's DRA driver): go-nvml's name for NVML_ERROR_LIBRARY_NOT_FOUND
        (_h82("h82d-dra-kubelet-plugin-nvml-dir-shadow"), "environment", "nvml-library-not-found", None),
        ("failed to initialize NVML: ERROR_DRIVER_NOT_LOADED\n", "environment", None, None),
        # corpus/holdout83 (colmap): a CMake whose compiler-id modules do not know nvcc
        (
            _h83("h83c-colmap-cmake328-no-preprocessor-test-nvidia"),
            "environment",
            "version-skew",
            "cmake-cuda-compiler-identification-failed",
        ),
        (
            "CMake Error at CMakeLists.txt:3 (project):\n  No CMAKE_CUDA_COMPILER could be found.\n\n"
            "  Tell CMake where to find the compiler by setting either the environment\n",
            "environment",
            "toolchain-missing",
            "cmake-cuda-compiler-not-found",
        ),
        (
            'CMake Error in src/CMakeLists.txt:\n  CUDA_ARCHITECTURES is empty for target "kernels".\n',
            "environment",
            None,
            None,
        ),
        # corpus/holdout83 (Cell-DETR's build): the -ccbin compiler does not exist
        (
            _h83("h83c-cell-detr-pau-ccbin-gcc630-missing"),
            "environment",
            "toolchain-missing",
            "nvcc-host-compiler-properties-failed",
        ),
        # corpus/holdout82 (vLLM, tensor parallel): ranks sharing one Triton cache directory
        (
            _h82("h82b-vllm-tp-triton-cache-tmp-file-race"),
            "environment",
            "stale-compile-cache",
            "triton-cache-temp-file-vanished",
        ),
        # corpus/holdout84 (MOFA-Video): an API the installed CuPy no longer has
        (_h84("h84b-mofa-video-cupy-compile-with-cache-removed"), "environment", "version-skew", "cupy-api-missing"),
        ("AttributeError: module 'numba.cuda' has no attribute 'autojit'\n", "environment", "version-skew", None),
        # corpus/holdout84 (FastPhotoStyle): NVRTC told to include a header by its path in a CUDA install that lacks it
        (
            _h84("h84b-fastphotostyle-nvrtc-math-functions-path"),
            "environment",
            "toolkit-header-missing",
            "compiler-toolkit-header-missing",
        ),
        # corpus/holdout82 (Levanter/Marin): a Pallas grid query reached outside pallas_call (a VJP through the kernel)
        (
            _h82("h82c-levanter-pallas-ce-vjp-grid-context"),
            "kernel-logic",
            "language-misuse",
            "pallas-grid-query-outside-kernel",
        ),
        # corpus/holdout82 (an AlphaFold 3 install): XLA's ptxas fallback warning, raised as the exception
        (_h82("h82c-af3-conda-blackwell-ptxas-too-old"), "environment", "ptxas-too-old-for-arch", None),
    ],
)
def test_families_decide(text: str, category: str, mode: str | None, rule: str | None) -> None:
    got = decided(text)
    assert got[0] == category, got
    if mode:
        assert got[1] == mode, got
    if rule:
        assert got[2] == rule, got


@pytest.mark.parametrize(
    "text",
    [
        # XLA's fallback when it is taken: a logged warning, the program goes on
        "W0312 10:00:00.1 1 ptx_compiler.cc:120] ptxas too old. Falling back to the driver to compile.\n"
        "step 1 loss 2.31\n",
        # a Triton cache path in an ordinary listing, nothing missing
        "cached: /root/.triton/cache/ab/tmp.pid_1_0b1c2d3e-aaaa-bbbb-cccc-000000000000/k.json\n",
        # NVML's name in prose without a status
        "NVML initialised; ERROR_ counters reset\n",
    ],
)
def test_near_misses_stay_silent(text: str) -> None:
    rep = classify_text(text)
    assert rep.status == "no-failure", rep.to_dict()


def test_a_profiler_banner_is_not_code_comparing_against_the_status() -> None:
    """``==ERROR==`` and ``==PROF==`` banners start with ``==``: the name after them is reported, not compared."""
    from diagnose.catalogue import compared

    line = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"
    i = line.index("ERR_")
    assert not compared(line, i, i + 4)
    code = "if (status == ERR_NVGPUCTRPERM) {"
    j = code.index("ERR_")
    assert compared(code, j, j + 4)


def test_a_projects_own_cuda_folder_is_not_the_toolkits_include_directory() -> None:
    got = decided('src/kernels.cu(3): catastrophic error: cannot open source file "src/cuda/include/kernels.h"\n')
    assert got[2] != "compiler-toolkit-header-missing", got
