"""Families learned from holdout95 (after its first measurement), each from its tool's own message catalogue: PyTorch's
advanced indexing with indices on another device, MLX's run-time compiler without the CUDA headers, XLA writing
StableHLO for an older PJRT plugin, a FasterTransformer-derived library's run-time architecture check, vLLM's
capability dispatch with no compiled kernel, ptxas refusing 32-bit addressing from sm_90 on, and a host compiler's
reserved builtin reached from device code.

Each is tested on the line of the development case (its id in the comment) and on another wording of the same tool
(its source, cited in the family's ``messages``), and on nearby lines it must not take."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import classify_text, corpus_log, verdict


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
    ],
)
def test_a_family_answers(text: str, category: str, rule: str) -> None:
    status, got_category, got_rule = verdict(text)
    assert (status, got_category) == ("diagnosed", category), (status, got_category, got_rule)
    assert got_rule is not None and got_rule.startswith(rule), got_rule


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
    ],
)
def test_a_family_that_abstains_keeps_its_candidates(text: str, family: str) -> None:
    report = classify_text(text)
    assert report.status == "unknown", (report.status, report.diagnosis and report.diagnosis.rule)
    assert report.diagnosis is not None
    assert any(f.rule.startswith(family) for f in report.diagnosis.findings), report.diagnosis.findings
    assert len({f.category for f in report.diagnosis.findings}) >= 2


@pytest.mark.parametrize(
    ("text", "not_rule"),
    [
        # the code's own host function called from a kernel: not a reserved name
        (
            'scale.cu(2): error: calling a __host__ function("host_scale(float)") from a __global__ function("scale")'
            " is not allowed\n",
            "nvcc-host-compiler-builtin-in-device-code",
        ),
        # ptxas's warning alone, with no refusal
        (
            "ptxas warning : Program uses 32-bit address on line '86' which is conflicting with .address_size 64\n",
            "ptxas-32bit-addressing-unsupported",
        ),
        # MLX finding its headers and printing where
        ("[mlx] using CUDA headers from /usr/local/cuda/include\n", "mlx-cuda-headers-not-found"),
    ],
)
def test_nearby_lines_are_not_taken(text: str, not_rule: str) -> None:
    report = classify_text(text)
    rules = [f.rule for f in report.diagnosis.findings] if report.diagnosis is not None else []
    assert not any(r.startswith(not_rule) for r in rules), rules
