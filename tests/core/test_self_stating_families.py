"""Logs that state their own cause, read as the family of messages they belong to: a compiler's internal
assertion, a tool that is not found, a driver a container needs newer, a binding called by its own package with
another signature, a stride check, a dynamic shared-memory launch above 48 KiB, a count that wrapped negative,
an InfiniBand verbs call inside NCCL, a host API of numba.cuda used in a kernel.

Each family is tested on the log of a development case (corpus/holdout11, public reports: the thread named in
the case's ``source``) and on another wording of the same family from the tool's sources or documentation
(provenance in diagnose/data/catalogue/ and the rules' examples), with near misses that must not be read as it."""

from __future__ import annotations

import pytest
from corpus_logs import corpus_log, decided


def _case(case_id: str) -> str:
    return corpus_log("holdout11", case_id)


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 triton-3d-dot-ieee-llvm-assertion: SmallVector.h inside Triton's bundled LLVM, then "Aborted"
        _case("triton-3d-dot-ieee-llvm-assertion"),
        # holdout11 fla-chunk-delta-h-triton-3-2-linearlayout-assert: Triton's lib/Tools/LinearLayout.cpp
        _case("fla-chunk-delta-h-triton-3-2-linearlayout-assert"),
        # llvm/include/llvm/Support/Casting.h's cast<> assertion in glibc's format, as Triton builds print it
        "python: /source/llvm-project/llvm/include/llvm/Support/Casting.h:566: decltype(auto) llvm::cast(const From &) "
        "[To = mlir::triton::gpu::BlockedEncodingAttr, From = mlir::Attribute]: Assertion `isa<To>(Val) && "
        '"cast<Ty>() argument of incompatible type!"\' failed.\nAborted (core dumped)\n',
    ],
)
def test_an_assertion_inside_the_compiler_is_a_compiler_bug(text: str) -> None:
    assert decided(text) == ("environment", "compiler-bug", "compiler-internal-assertion")


def test_the_programs_own_assertion_is_not_the_compilers() -> None:
    # glibc's format on the program's own file and function
    text = "a.out: vector_add.cu:41: int main(): Assertion `err == cudaSuccess' failed.\nAborted (core dumped)\n"
    assert decided(text)[2] != "compiler-internal-assertion"


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 tensorrt-myelin-gvn-ssa-validation (NVIDIA/TensorRT#4468)
        _case("tensorrt-myelin-gvn-ssa-validation"),
        # TensorRT 11.0's wording with a detail, quoted in NVIDIA/TensorRT-Model-Connect#245
        "Internal Error: MyelinCheckException: wrap_attention_op_in_kgen.cpp:1897: CHECK(expected_live_inputs == "
        "knode->inputs().size()) failed. Expected 3 live inputs, got 4\n",
    ],
)
def test_an_internal_check_of_tensorrts_compiler_is_a_compiler_bug(text: str) -> None:
    assert decided(text) == ("environment", "compiler-bug", "tensorrt-myelin-internal-check")


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 nixpkgs-jax-ptxas-not-found
        _case("nixpkgs-jax-ptxas-not-found"),
        # the same XLA search for nvlink (xla_cuda_plugin.so 0.10.2: "Couldn't find a suitable version of %s")
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Couldn't find a suitable version of nvlink. The following "
        "locations were considered: /usr/local/cuda/bin/nvlink\n",
    ],
)
def test_a_tool_xla_cannot_find_is_toolchain_missing(text: str) -> None:
    assert decided(text)[:2] == ("environment", "toolchain-missing")


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 nvidia-container-cli-cuda11-image-old-driver
        _case("nvidia-container-cli-cuda11-image-old-driver"),
        # the condition alone, as Kubernetes events quote the hook's error
        "Error: failed to create containerd task: nvidia-container-cli: requirement error: unsatisfied condition: "
        "cuda>=12.9: unknown\n",
    ],
)
def test_a_container_needing_a_newer_cuda_is_driver_too_old(text: str) -> None:
    assert decided(text) == ("environment", "driver-too-old", "container-cuda-requirement-above-driver")


def test_a_container_requirement_on_the_brand_is_not_the_driver_version() -> None:
    text = "nvidia-container-cli: requirement error: unsatisfied condition: brand = tesla: unknown\n"
    assert decided(text)[2] != "container-cuda-requirement-above-driver"


def test_jax_calling_jaxlib_with_another_signature_is_version_skew() -> None:
    # holdout11 pallas-jax-triton-to-proto-signature-skew
    text = _case("pallas-jax-triton-to-proto-signature-skew")
    assert decided(text) == ("environment", "version-skew", "env-binding-signature-skew")


def test_the_programs_own_call_with_wrong_arguments_is_not_skew() -> None:
    # pybind11's message (pybind11/pybind11.h) on a user's extension call
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/run.py", line 8, in <module>\n'
        "TypeError: add(): incompatible function arguments. The following argument types are supported:\n"
        "    1. (arg0: torch.Tensor, arg1: torch.Tensor) -> torch.Tensor\n"
    )
    assert decided(text)[2] != "env-binding-signature-skew"


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 keras-gpu-launch-config-work-element-count-negative: GetGpuLaunchConfig's CHECK_GT
        _case("keras-gpu-launch-config-work-element-count-negative"),
        # GetGpu2DLaunchConfig's CHECK_GT(xdim, 0) (tensorflow/core/util/gpu_launch_config.h), at exactly -2^31
        "F tensorflow/core/util/gpu_launch_config.h:195] Check failed: xdim > 0 (-2147483648 vs. 0)\n",
    ],
)
def test_a_count_checked_positive_that_wrapped_is_int32_overflow(text: str) -> None:
    assert decided(text) == ("runtime-assumption", "int32-index-overflow", "check-positive-count-wrapped-negative")


def test_a_small_negative_count_is_not_a_wrap() -> None:
    text = "F tensorflow/core/util/gpu_launch_config.h:129] Check failed: work_element_count > 0 (-1 vs. 0)\n"
    assert decided(text)[2] != "check-positive-count-wrapped-negative"


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 nccl-tests-ibv-modify-qp-timeout-external-plugin
        _case("nccl-tests-ibv-modify-qp-timeout-external-plugin"),
        # holdout11 nccl-2-5-6-ib-modify-qp-invalid-argument-regression
        _case("nccl-2-5-6-ib-modify-qp-invalid-argument-regression"),
        # NCCL 2.32.3 libnccl.so.2: "Call to ibv_reg_mr failed with error %s"
        "node-01:189884:189890 [1] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n",
    ],
)
def test_an_ib_verbs_call_failing_inside_nccl_is_the_network(text: str) -> None:
    assert decided(text) == ("environment", "network-config", "nccl-ib-verbs-call-failed")


@pytest.mark.parametrize(
    ("text", "rule", "mode"),
    [
        # holdout11 xformers-mem-eff-attn-bias-3d-layout: TORCH_CHECK(attn_bias.stride(1) == 0) in xformers csrc
        (_case("xformers-mem-eff-attn-bias-3d-layout"), "assert-input-stride-layout", "layout-unexpected"),
        # the same check with c10's tail (torch 2.13.0 libtorch_cpu.so)
        (
            "RuntimeError: Expected attn_bias.stride(1) == 0 to be true, but got false.  (Could this error message "
            "be improved?  If so, please report an enhancement request to PyTorch.)\n",
            "assert-input-stride-layout",
            "layout-unexpected",
        ),
        # a last dimension checked dense stays the contiguity family (flash-attn 1.x fmha_api.cpp)
        (
            "RuntimeError: Expected q.stride(-1) == 1 to be true, but got false.\n",
            "assert-input-contiguous",
            "noncontiguous-input",
        ),
    ],
)
def test_a_stride_check_is_a_layout_assumption(text: str, rule: str, mode: str) -> None:
    assert decided(text) == ("runtime-assumption", mode, rule)


def test_a_launch_with_dynamic_smem_over_48k_without_opt_in() -> None:
    # holdout11 cupy-rawkernel-96kb-dynamic-smem-no-optin (cupy/cupy): shared_mem=98304 then CUDA_ERROR_INVALID_VALUE
    text = _case("cupy-rawkernel-96kb-dynamic-smem-no-optin")
    assert decided(text) == (
        "runtime-assumption",
        "smem-exceeds-device-limit",
        "cuda-invalid-value-dynamic-smem-over-48k",
    )
    # a CUDA C launch's third parameter (the programming guide's <<<grid, block, bytes>>>) at 64 KiB
    cuda = "kern<<<grid, 256, 65536>>>(d_in, d_out);\nCUDA error: invalid argument (cudaErrorInvalidValue)\n"
    assert decided(cuda)[2] == "cuda-invalid-value-dynamic-smem-over-48k"
    # 48 KiB exactly needs no opt-in
    small = "kern<<<grid, 256, 49152>>>(d_in, d_out);\nCUDA error: invalid argument (cudaErrorInvalidValue)\n"
    assert decided(small)[2] != "cuda-invalid-value-dynamic-smem-over-48k"


@pytest.mark.parametrize(
    "text",
    [
        # holdout11 numba-to-device-inside-kernel (numba/numba): the message without its TypingError head
        _case("numba-to-device-inside-kernel"),
        # numba 0.68.1 numba/core/errors.py UntypedAttributeError's full wording for the module
        "numba.core.errors.TypingError: Failed in cuda mode pipeline (step: nopython frontend)\n"
        "Unknown attribute 'device_array' of type Module(<module 'numba.cuda' from "
        "'/site-packages/numba/cuda/__init__.py'>)\n",
    ],
)
def test_a_host_api_of_numba_cuda_in_a_kernel_is_language_misuse(text: str) -> None:
    assert decided(text) == ("kernel-logic", "language-misuse", "numba-unsupported-in-kernel")
