"""Messages that state their own cause are answered with it: a library's version check of the cuDNN it was
compiled against, NVML's driver-not-loaded status as libnvidia-container relays it, and a compute-capability
requirement written "X or higher required", Taichi's bounds check naming the kernel, the field and the indices, an attention kernel's list of
head sizes, a Triton language method the installed Triton lacks, the container hook failing to initialise CUDA
on the host, XLA's warning that its ptxas miscompiles.

Each is tested on a development case (corpus/holdout12; the thread named in the case's ``source``) and on
another wording of the same family from the tool's own sources."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log


@pytest.mark.parametrize(
    ("text", "category", "mode"),
    [
        # onnx/onnx-caffe2#288: Caffe2's CheckCuDNNVersions (caffe2/core/common_cudnn.h)
        (corpus_log("holdout12", "onnx-caffe2-cudnn-compiled-runtime-mismatch"), "environment", "version-skew"),
        # the same check with other numbers (a cuDNN 7.6 build finding 7.1 at run time)
        (
            "RuntimeError: [enforce fail at common_cudnn.h:120] version_match || backwards_compatible_7 || "
            "patch_compatible. cuDNN compiled (7605) and runtime (7102) versions mismatch",
            "environment",
            "version-skew",
        ),
        # HonuRobotics/dockwater#10: libnvidia-container's NVML error, lower-cased
        (corpus_log("holdout12", "dockwater-container-nvml-driver-not-loaded"), "environment", "driver-not-loaded"),
        # the same status from another nvidia-container-cli step (libnvidia-container src/error.c, error_set_nvml)
        (
            "docker: Error response from daemon: OCI runtime create failed: container_linux.go:345: starting "
            'container process caused "process_linux.go:430: container init caused \\"process_linux.go:413: '
            'running prestart hook 1 caused \\\\\\"error running hook: exit status 1, stdout: , stderr: '
            'nvidia-container-cli: detection error: nvml error: driver not loaded\\\\\\\\n\\\\\\"\\"": unknown.',
            "environment",
            "driver-not-loaded",
        ),
        # NVIDIA/TransformerEngine#1159: transformer_engine/pytorch/fp8.py check_fp8_support
        (
            corpus_log("holdout12", "transformer-engine-fp8-needs-cc89-rtx3090"),
            "runtime-assumption",
            "arch-feature-unavailable",
        ),
        # the same module's MXFP8 check
        (
            "AssertionError: Device compute capability 10.0 or higher required for MXFP8 execution.",
            "runtime-assumption",
            "arch-feature-unavailable",
        ),
        # taichi-dev/taichi#8695: Taichi's debug-mode bounds check (taichi/transforms/check_out_of_bound.cpp)
        (
            corpus_log("holdout12", "taichi-euler-fluid-example-negative-index-read"),
            "kernel-logic",
            "oob-global-access",
        ),
        # the same assert as older releases raise it (llvm_program.cpp check_runtime_error: "Assertion failure: ")
        (
            "RuntimeError: [llvm_program.cpp:taichi::lang::LlvmProgramImpl::check_runtime_error@436] Assertion "
            "failure: (kernel=substep_c76_0) Accessing field (S3place<f32>) of size (128,) with indices (128,)",
            "kernel-logic",
            "oob-global-access",
        ),
        # Dao-AILab/flash-attention#1290: FlashAttention-3's head-size check (hopper/flash_api.cpp)
        (corpus_log("holdout12", "flash-attn-hopper-unsupported-head-size"), "runtime-assumption", "shape-unsupported"),
        # vLLM's check of the same contract (vllm/attention/backends, get_supported_head_sizes)
        (
            "ValueError: Head size 208 is not supported by PagedAttention. Supported head sizes are: "
            "[64, 80, 96, 112, 120, 128, 192, 256].",
            "runtime-assumption",
            "shape-unsupported",
        ),
        # hiyouga/LlamaFactory#5784: a released kernel calls a tl.tensor method the installed Triton lacks
        (corpus_log("holdout12", "liger-swiglu-tensor-cast-old-triton"), "environment", "version-skew"),
        # the module-level spelling of the same skew (CPython's module_getattro on triton.language)
        ("AttributeError: module 'triton.language' has no attribute 'cast'", "environment", "version-skew"),
        # NVIDIA/libnvidia-container#103: the container hook's CUDA initialisation on the host failed
        (corpus_log("holdout12", "nvidia-container-cli-cuda-unknown-error-restart"), "environment", "driver-state"),
        # jax-ml/jax#25718: XLA's warning that the ptxas it invokes miscompiles (xla_cuda_plugin.so strings)
        (corpus_log("holdout12", "jax-system-ptxas-12-1-shadows-pip-ptxas"), "environment", "ptxas-too-old"),
        # the same warning for another 12.x ptxas, then the run's failure
        (
            "W0210 09:12:01.000001 4242 ptx_compiler_helpers.cc:87] *** WARNING *** Invoking ptxas with version "
            "12.4.131, which corresponds to a CUDA version <=12.6.2. CUDA versions 12.x.y up to and including 12.6.2 "
            "miscompile certain edge cases around clamping.\n"
            "jax.errors.JaxRuntimeError: INTERNAL: Failed to execute XLA Runtime executable",
            "environment",
            "ptxas-too-old",
        ),
        # cupy/cupy#4875: NVRTC cannot open a standard header included by CuPy's own carray.cuh
        (
            corpus_log("holdout12", "cupy-carray-header-type-traits-nvrtc-regression"),
            "environment",
            "library-regression",
        ),
        # the same NVRTC message ("cannot open %s file %sq", libnvrtc.so.13) for another standard header and header
        (
            "cupy.cuda.compiler.CompileException: /opt/cupy/cupy/_core/include/cupy/complex.cuh(7): catastrophic "
            'error: cannot open source file "cstddef"',
            "environment",
            "library-regression",
        ),
    ],
)
def test_a_message_that_names_its_cause_is_answered(text: str, category: str, mode: str) -> None:
    report = classify_text(text)
    assert (report.category, report.failure_mode) == (category, mode)


def test_a_toolkit_version_requirement_is_not_an_arch_requirement() -> None:
    # transformer_engine/pytorch/fp8.py check_fp8_support: the CUDA toolkit check beside the capability check
    report = classify_text("AssertionError: Cuda version 12.1 or higher required for FP8 execution on Ada.")
    assert report.failure_mode != "arch-feature-unavailable"


def test_the_container_hooks_cuda_message_is_read_after_its_stage_prefix() -> None:
    # libnvidia-container's "initialization error:" is the CLI's stage, not cudaErrorInitializationError
    from diagnose.collectors.cuda_errors import parse

    facts = parse("nvidia-container-cli: initialization error: cuda error: unknown error")
    assert facts is not None and facts.error == "cudaErrorUnknown"


def test_a_specific_driver_message_after_the_hooks_prefix_keeps_its_own_family() -> None:
    # cuGetErrorString of CUDA_ERROR_SYSTEM_NOT_READY after the same prefix: still the host's environment, and
    # the fabric-manager family (more specific than the hook's) decides it
    report = classify_text("nvidia-container-cli: initialization error: cuda error: system not yet initialized")
    assert report.category == "environment"
    assert report.diagnosis is not None and report.diagnosis.rule != "container-cli-cuda-init-failed"


def test_a_cupy_header_error_that_is_not_a_missing_std_header_stays_with_the_toolkit_family() -> None:
    # cupy/cupy#1575 (the older family's own example): a CUDA type missing from the toolkit's headers
    report = classify_text("...\\cupy/carray.cuh(55): error: identifier '__half_raw' is undefined")
    assert report.diagnosis is not None and report.diagnosis.rule == "cupy-own-header-compile-error"
