"""The families of the wider GPU stack (TensorFlow, LLVM's NVPTX backend, cuSOLVER/cuTENSOR, TensorRT,
ONNX Runtime, llama.cpp/ggml, bitsandbytes, DeepSpeed, xFormers/flash-attention, PaddlePaddle, CUDA.jl,
HIP) on the tools' own wordings: each line below is a message template of the tool, quoted in the
family's ``messages`` with its provenance, filled with plausible values."""

from __future__ import annotations

import pytest

from diagnose.catalogue import default_catalogue
from diagnose.collectors.families import facts_from
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from tests.core.corpus_logs import verdict

CAT = default_catalogue()
MATCHER = Matcher(default_rules())
TOOLS = (
    "tensorflow",
    "llvm-nvptx",
    "cusolver-cutensor",
    "onnxruntime",
    "ggml",
    "bitsandbytes",
    "deepspeed",
    "xformers-flash-attn",
    "paddle",
    "cuda-jl",
    "hip",
)


def test_every_tool_of_the_wider_stack_has_families() -> None:
    tools = {f.tool for f in CAT.families}
    assert set(TOOLS) <= tools


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        (
            "tensorflow.python.framework.errors_impl.InternalError: Blas GEMM launch failed : "
            "a.shape=(64, 512), b.shape=(512, 10), m=64, n=10, k=512",
            "tf-blas-gemm-launch-failed",
            "environment",
        ),
        (
            "UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to "
            "initialize, so try looking to see if a warning log message was printed above.",
            "tf-conv-algorithm-cudnn-init-failed",
            "environment",
        ),
        (
            "InvalidArgumentError: Cannot assign a device for operation MatMul: node MatMul was explicitly "
            "assigned to /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. "
            "Make sure the device specification refers to a valid device.",
            "tf-device-placement-no-gpu",
            "environment",
        ),
        (
            "LLVM ERROR: PTX version 7.8 does not support target 'sm_100a'. Minimum required PTX version is 8.6. "
            "Either remove the PTX version to use the default, or increase it to at least 8.6.",
            None,
            "environment",
        ),
        ("RuntimeError: cusolver error: CUSOLVER_STATUS_ARCH_MISMATCH", "cusolver-arch-mismatch", "runtime-assumption"),
        (
            "[TRT] [E] IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error "
            "(Target GPU SM 61 is not supported by this TensorRT release.)",
            "tensorrt-gpu-not-supported-by-release",
            "environment",
        ),
        (
            "ggml/src/ggml-cuda/mmq.cu:90: ERROR: CUDA kernel mul_mat_q has no device code compatible with "
            "CUDA arch 610. ggml-cuda.cu was compiled for: 700,750,800",
            "ggml-no-device-code-for-arch",
            "environment",
        ),
        (
            "llama_model_load: error loading model: unable to allocate backend buffer\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: "
            "out of memory",
            "ggml-cuda-buffer-out-of-memory",
            "runtime-assumption",
        ),
        (
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda122.so. "
            "Maybe you need to compile it from source?",
            "bnb-cuda-setup-failed",
            "environment",
        ),
        (
            "RuntimeError: Unable to JIT load the fused_adam op due to ninja not being installed.",
            "deepspeed-ninja-missing",
            "environment",
        ),
        (
            "RuntimeError: FlashAttention only support fp16 and bf16 data type",
            "flash-attn-dtype-unsupported",
            "runtime-assumption",
        ),
        (
            "`fa2F@2.5.6` is not supported because:\n"
            "    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)",
            None,  # the concept rule (capability below the requirement) or the family's own
            "runtime-assumption",
        ),
        (
            "`fa3F@0.0.0` is not supported because:\n"
            "    requires device with capability <= (9, 0) but your GPU has capability (12, 0) (too new)",
            "concept-xformers-gpu-too-new-alone",
            "environment",
        ),
        (
            "Error: This version of CUDA.jl only supports NVIDIA drivers for CUDA 11.x or higher "
            "(yours is for CUDA 10.2.0)",
            None,  # the driver concept rule or the family's own
            "environment",
        ),
        (
            # a named exception (corpus/holdout7 cudajl-ka-fast-linear-index-boundserror); the unnamed
            # KernelException alone is open between the kernel and the caller's data (test_number_roles)
            "ERROR: a BoundsError was thrown during kernel execution on thread (513, 1, 1) in block (3, 1, 1).",
            "cudajl-device-exception",
            "kernel-logic",
        ),
    ],
)
def test_a_family_message_gets_its_owner(text: str, rule: str | None, category: str) -> None:
    status, got_category, got_rule = verdict(text)
    assert status == "diagnosed", (status, got_rule)
    assert got_category == category
    if rule is not None:
        assert got_rule == rule


def test_paddle_out_of_memory_is_decided_by_what_paddle_itself_holds() -> None:
    """The same report, with Paddle holding nothing, points at another process; holding most of the GPU,
    at the problem's size."""
    head = "ResourceExhaustedError: \n\nOut of memory error on GPU 0. Cannot allocate 240.250244MB memory on GPU 0, "
    tail = " memory has been allocated and available memory is only 12.000000MB.\n"
    assert verdict(head + "0.000000B" + tail)[1:] == ("environment", "paddle-oom-nothing-allocated-by-paddle")
    assert verdict(head + "15.431824GB" + tail)[1:] == ("runtime-assumption", "paddle-oom")


@pytest.mark.parametrize(
    "text",
    [
        # TensorFlow skips an old GPU and runs on the CPU
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1700] Ignoring visible gpu device (device: 0, "
        "name: Quadro K2000, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. "
        "The minimum required Cuda capability is 3.5.\nEpoch 1/10\n",
        # Paddle's version warning in an otherwise passing check
        "W1114 22:57:33.949204    32 device_context.h:397] WARNING: device: 0. The installed Paddle is compiled "
        "with CUDNN 8.1, but CUDNN version in your machine is 8.0, which may cause serious incompatible bug. Please "
        "recompile or reinstall Paddle with compatible CUDNN version.\nPaddlePaddle works well on 1 GPU.\n",
        # ONNX Runtime falls back to the CPU provider
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names."
        "Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n",
    ],
)
def test_a_warning_with_a_fallback_is_no_failure(text: str) -> None:
    assert verdict(text)[0] == "no-failure"
    assert CAT.scan(text), "the warning is still recognised as a family"


def test_version_and_cc_numbers_are_read_as_concepts() -> None:
    ds = facts_from(
        CAT,
        "CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 11.7 does not match the version "
        "torch was compiled with 12.1, unable to compile cuda/cpp extensions without a matching cuda version.",
    )
    assert ds is not None and (ds.have_version, ds.need_version) == ("11.7", "12.1") and ds.version_too_old
    ptx = facts_from(
        CAT, "LLVM ERROR: PTX version 7.8 does not support target 'sm_100a'. Minimum required PTX version is 8.6."
    )
    assert ptx is not None and ptx.version_too_old and ptx.component == "ptx-isa"
    nvptx = facts_from(
        CAT,
        'LLVM ERROR: NVPTX SM architecture "80" and PTX version "78" do not support cluster_dim. '
        "Requires SM >= 90 and PTX >= 78.",
    )
    assert nvptx is not None and (nvptx.need_cc, nvptx.have_cc) == (9.0, 8.0) and nvptx.cc_too_low
    xf = facts_from(CAT, "requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)")
    assert xf is not None and (xf.need_cc, xf.have_cc) == (8.0, 7.5) and xf.cc_too_low


def test_hip_is_recognised_but_never_decided_by_its_family() -> None:
    """Another vendor's runtime: the family supplies facts only, no rule of its own decides from it."""
    text = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"
    assert [h.family.id for h in CAT.scan(text)] == ["hip-runtime-error"]
    assert MATCHER.rules.get("hip-runtime-error") is None
    assert not (verdict(text)[2] or "").startswith("hip-")
