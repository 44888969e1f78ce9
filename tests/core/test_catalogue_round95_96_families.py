"""Families learned from holdout95 and holdout96 (after their first measurements), each from its tool's own message
catalogue: PyTorch's advanced indexing with indices on another device, MLX's run-time compiler without the CUDA
headers, XLA writing StableHLO for an older PJRT plugin, a FasterTransformer-derived library's run-time architecture
check, vLLM's capability dispatch with no compiled kernel, ptxas refusing 32-bit addressing from sm_90 on, a host
compiler's reserved builtin reached from device code (holdout95); the dynamic loader's missing symbol version, PyTorch
Geometric's companions built for another CUDA or none, and GradScaler's float16 gradients (holdout96).

Each is tested on the line of the development case (its id in the comment) and on another wording of the same tool
(its source, cited in the family's ``messages``), and on nearby lines it must not take."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import assert_family_abstains, assert_family_answers, corpus_log, finding_rules


@pytest.mark.parametrize(
    ("text", "category", "rule"),
    [
        # corpus/holdout95 h95a-sam-amg-batched-nms-cpu-idxs
        (
            corpus_log("holdout95", "h95a-sam-amg-batched-nms-cpu-idxs"),
            "runtime-assumption",
            "torch-operands-device-check",
        ),
        # torch 2.13.0 libtorch_cpu.so: the same check, the indexed tensor on a GPU and the indices on another
        (
            "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cuda:1)\n",
            "runtime-assumption",
            "torch-operands-device-check",
        ),
        # corpus/holdout95 h95c-mlx-cuda13-jit-headers-not-found
        (corpus_log("holdout95", "h95c-mlx-cuda13-jit-headers-not-found"), "environment", "mlx-cuda-headers-not-found"),
        # corpus/holdout95 h95d-jax-ffi-array-attr-stablehlo-serialize
        (
            corpus_log("holdout95", "h95d-jax-ffi-array-attr-stablehlo-serialize"),
            "environment",
            "xla-stablehlo-serialize-for-plugin-failed",
        ),
        # xla/pjrt/mlir_to_hlo.cc of later releases names the plugin's version
        (
            "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Failed to serialize StableHLO to plugin version 1.9.5;\n"
            "\nDetailed error from MLIR: loc(\"x\"): error: failed to legalize operation 'vhlo.composite_v1'\n",
            "environment",
            "xla-stablehlo-serialize-for-plugin-failed",
        ),
        # corpus/holdout95 h95a-mmcv-deformconv-floorf-msvc-16-9
        (
            corpus_log("holdout95", "h95a-mmcv-deformconv-floorf-msvc-16-9"),
            "environment",
            "nvcc-host-compiler-builtin-in-device-code",
        ),
        # corpus/holdout96 h96e-spline-conv-cuda-wheel-glibc-2-27
        (
            corpus_log("holdout96", "h96e-spline-conv-cuda-wheel-glibc-2-27"),
            "environment",
            "loader-symbol-version-not-found",
        ),
        # glibc's ld.so, the same check on libstdc++'s symbol versions (a conda environment's older libstdc++)
        (
            "ImportError: /opt/conda/envs/x/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by "
            "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1)\n",
            "environment",
            "loader-symbol-version-not-found",
        ),
        # corpus/holdout96 h96e-torch-sparse-built-on-gpuless-host-cuda-0
        (
            corpus_log("holdout96", "h96e-torch-sparse-built-on-gpuless-host-cuda-0"),
            "environment",
            "pyg-extension-built-without-cuda",
        ),
        # torch_cluster's __init__.py, the same check with two CUDA versions
        (
            "RuntimeError: Detected that PyTorch and torch_cluster were compiled with different CUDA versions. PyTorch "
            "has CUDA version 11.8 and torch_cluster has CUDA version 12.1. Please reinstall the torch_cluster that "
            "matches your PyTorch install.\n",
            "environment",
            "pyg-extension-cuda-version-differs",
        ),
    ],
)
def test_a_family_answers(text: str, category: str, rule: str) -> None:
    assert_family_answers(text, category, rule)


@pytest.mark.parametrize(
    ("text", "family"),
    [
        # corpus/holdout95 h95b-eetq-preprocess-unsupported-arch-h100
        (corpus_log("holdout95", "h95b-eetq-preprocess-unsupported-arch-h100"), "library-runtime-unsupported-arch"),
        # FasterTransformer's FT_CHECK_WITH_INFO in a GEMM dispatcher
        (
            "terminate called after throwing an instance of 'std::runtime_error'\n"
            "  what():  [FT][ERROR] Unsupported Arch Assertion fail: /workspace/src/fastertransformer/kernels/"
            "cutlass_kernels/fpA_intB_gemm/fpA_intB_gemm_template.h:377\n",
            "library-runtime-unsupported-arch",
        ),
        # corpus/holdout95 h95b-vllm-w8a8-turing-spurious-no-compiled-cutlass
        (
            corpus_log("holdout95", "h95b-vllm-w8a8-turing-spurious-no-compiled-cutlass"),
            "vllm-no-compiled-kernel-for-capability",
        ),
        # corpus/holdout95 h95d-mosaic-gpu-mbarrier-32bit-ptxas
        (corpus_log("holdout95", "h95d-mosaic-gpu-mbarrier-32bit-ptxas"), "ptxas-32bit-addressing-unsupported"),
        # ptxas run with --machine 32 for a Blackwell target (the same message, another arch)
        (
            "ptxas fatal   :  32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_100 or higher "
            "architectures.\n",
            "ptxas-32bit-addressing-unsupported",
        ),
        # corpus/holdout96 h96d-baichuan-peft-unscale-fp16 and h96d-diffusers-lora-validation-fp16-unscale (two causes)
        (corpus_log("holdout96", "h96d-baichuan-peft-unscale-fp16"), "torch-grad-scaler-fp16-parameters"),
        (corpus_log("holdout96", "h96d-diffusers-lora-validation-fp16-unscale"), "torch-grad-scaler-fp16-parameters"),
    ],
)
def test_a_family_that_abstains_keeps_its_candidates(text: str, family: str) -> None:
    assert_family_abstains(text, family)


@pytest.mark.parametrize(
    ("text", "not_rule"),
    [
        # the code's own host function called from a kernel: not a reserved name
        (
            'scale.cu(2): error: calling a __host__ function("host_scale(float)") from a __global__ function("scale")'
            " is not allowed\n",
            "nvcc-host-compiler-builtin-in-device-code",
        ),
        # a helper of the code's own with a reserved-looking name, called from a kernel: the code's error
        (
            'k.cu(12): error: calling a __host__ function("__scale_helper") from a __global__ function("k") is not '
            "allowed\n",
            "nvcc-host-compiler-builtin-in-device-code",
        ),
        # ptxas's warning alone, with no refusal
        (
            "ptxas warning : Program uses 32-bit address on line '86' which is conflicting with .address_size 64\n",
            "ptxas-32bit-addressing-unsupported",
        ),
        # the loader's lookup trace (LD_DEBUG=versions), which names versions it checks and finds
        (
            "     12345: checking for version `GLIBC_2.27' in file /lib64/libm.so.6 [0] required by file ./a.so [0]\n",
            "loader-symbol-version-not-found",
        ),
        # MLX finding its headers and printing where
        ("[mlx] using CUDA headers from /usr/local/cuda/include\n", "mlx-cuda-headers-not-found"),
    ],
)
def test_nearby_lines_are_not_taken(text: str, not_rule: str) -> None:
    rules = finding_rules(text)
    assert not any(r.startswith(not_rule) for r in rules), rules
