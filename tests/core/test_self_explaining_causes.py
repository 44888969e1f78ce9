"""Messages that state their cause, second round: one line names the cause, so kdiag answers instead of abstaining.

Each family is tested on a real log of a development set (corpus/holdout8: public reports, the thread named in
the case's ``source``) and on at least one other wording of the same family, taken from a tool's own message
text (its provenance is in the family's ``messages`` in diagnose/data/catalogue/)."""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided

from diagnose.collectors import cuda_errors
from diagnose.report import next_check


def _case(case_id: str, name: str = "holdout8") -> str:
    return corpus_log(name, case_id)


_classify = classify_text
_decided = decided


def _dispatch(*operators: tuple[str, list[str]]) -> str:
    """xFormers' "No operator found" report (xformers/ops/fmha/dispatch.py) with each operator's reasons."""
    lines = [
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:",
        "     query       : shape=(1, 4096, 8, 40) (torch.float16)",
        "     key         : shape=(1, 4096, 8, 40) (torch.float16)",
        "     value       : shape=(1, 4096, 8, 40) (torch.float16)",
        "     attn_bias   : <class 'torch.Tensor'>",
        "     p           : 0.0",
    ]
    for name, reasons in operators:
        lines.append(f"`{name}` is not supported because:")
        lines += [f"    {r}" for r in reasons]
    return "\n".join(lines) + "\n"


TOO_OLD = "requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)"

CASES = [
    # --- attention kernels that list the head dimensions they support
    # holdout8 flash-attn-v100-unsupported-head-dim (ZRayZzz/flash-attention-v100#8)
    (_case("flash-attn-v100-unsupported-head-dim"), "runtime-assumption", "shape-unsupported"),
    # vLLM 0.2-0.6's PagedAttention head-size check (vllm/attention/backends/*.py)
    (
        "ValueError: Head size 208 is not supported by PagedAttention. Supported head sizes are: "
        "[64, 80, 96, 112, 120, 128, 192, 256].\n",
        "runtime-assumption",
        "shape-unsupported",
    ),
    # --- xFormers' dispatcher: the reason every operator shares, or the general operator's, decides
    # holdout8 supir-xformers-without-cuda-ops: a build without CUDA, beside fa2F's capability line
    (_case("supir-xformers-without-cuda-ops"), "environment", "library-missing"),
    # holdout8 firefly-xformers-built-for-other-torch: the WARNING that the extension was built for another torch
    (_case("firefly-xformers-built-for-other-torch"), "environment", "version-skew"),
    # the same warning's version line alone (xformers/_cpp_lib.py), another torch and CUDA pair
    ("    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.2.0+cu121)\n", "environment", "version-skew"),
    # holdout8 xformers-cpu-tensors-no-operator: device=cpu under every operator, beside a dtype reason
    (_case("xformers-cpu-tensors-no-operator"), "runtime-assumption", "device-mismatch"),
    # the same reason (xformers/ops/fmha/common.py) beside fa2F's capability line
    (
        _dispatch(
            ("fa2F@v2.5.7-pt", ["device=cpu (supported: {'cuda'})", TOO_OLD]),
            ("cutlassF-pt", ["device=cpu (supported: {'cuda'})"]),
        ),
        "runtime-assumption",
        "device-mismatch",
    ),
    # holdout8 xformers-attn-bias-stride-not-multiple-of-8: cutlassF's stride reason and HINT, fa3F's capability
    (_case("xformers-attn-bias-stride-not-multiple-of-8"), "runtime-assumption", "misaligned-input"),
    # check_lastdim_alignment_stride1 (xformers/ops/fmha/common.py) on the query, beside fa2F's capability line
    (
        _dispatch(
            ("fa2F@v2.5.7-pt", [TOO_OLD]),
            ("cutlassF-pt", ["query.stride(-2) % 8 != 0 (query.stride() = (1310720, 320, 40, 1))"]),
        ),
        "runtime-assumption",
        "misaligned-input",
    ),
    # --- CUDA.jl
    # holdout8 cudajl-gtx1080-driver-only-cuda13: a driver for a CUDA release above the supported range
    (_case("cudajl-gtx1080-driver-only-cuda13"), "environment", "version-skew"),
    # holdout8 cudajl-reduction-threads-exceed-kernel-limit
    (_case("cudajl-reduction-threads-exceed-kernel-limit"), "runtime-assumption", "too-many-resources"),
    # lib/cudadrv/execution.jl's shared-memory check in the same function (diagnose_launch_failure)
    (
        "ERROR: Amount of dynamic shared memory exceeds kernel limit (64.000 KiB > 48.000 KiB).\n",
        "runtime-assumption",
        "too-many-resources",
    ),
    # --- a value past the int32 range
    # holdout8 cudajl-svd-20000-gesvdj-int32-workspace: Julia's InexactError on an Int32 argument
    (_case("cudajl-svd-20000-gesvdj-int32-workspace"), "runtime-assumption", "int32-index-overflow"),
    # Julia's conversion of a negative size below -2^31 (base/boot.jl, checked_trunc_sint)
    ("ERROR: InexactError: trunc(Int32, -4294967296)\n", "runtime-assumption", "int32-index-overflow"),
    # NumPy 2's wording (numpy 2.4.6, run here: `np.array([1], dtype=np.int32) + 3211456640`)
    (
        "OverflowError: Python integer 3211456640 out of bounds for int32\n",
        "runtime-assumption",
        "int32-index-overflow",
    ),
    # --- CUTLASS built without the arch-specific target
    # holdout8 te-cutlass-grouped-gemm-not-built-sm90a and cutlass-example-sm120-without-a-suffix (no ERROR prefix)
    (_case("te-cutlass-grouped-gemm-not-built-sm90a"), "environment", "no-kernel-image-for-arch"),
    (_case("cutlass-example-sm120-without-a-suffix"), "environment", "no-kernel-image-for-arch"),
    # CUTLASS 3.0-3.2's wording (sm90_gemm_tma_warpspecialized_cooperative.hpp) and CuTe's GMMA atom guard
    (
        "ERROR : Arch conditional MMA instruction used without targeting sm90a compute capability. Aborting.\n",
        "environment",
        "no-kernel-image-for-arch",
    ),
    (
        "Attempting to use SM90_64x128x16_F32F16F16_SS without CUTE_ARCH_MMA_SM90A_ENABLED\n",
        "environment",
        "no-kernel-image-for-arch",
    ),
    # --- Triton older than the GPU
    # holdout8 triton-32-mma-version-cc120-assert (glibc's assert format)
    (_case("triton-32-mma-version-cc120-assert"), "environment", "toolchain-too-old"),
    # the same assertion in the format of the BSD / macOS C library's assert
    (
        'Assertion failed: (false && "computeCapability not supported"), function getMMAVersionSafe, '
        "file AccelerateMatmul.cpp, line 36.\n",
        "environment",
        "toolchain-too-old",
    ),
    # --- TensorRT engine profiles
    # holdout8 tensorrt-streamdiffusion-input-outside-engine-profile and mmdeploy-triton-trt-binding-dimension-...
    (
        _case("tensorrt-streamdiffusion-input-outside-engine-profile"),
        "runtime-assumption",
        "shape-outside-engine-profile",
    ),
    (
        _case("mmdeploy-triton-trt-binding-dimension-outside-profile"),
        "runtime-assumption",
        "shape-outside-engine-profile",
    ),
    # TensorRT 8.x's shape-tensor wording (executionContext.cpp setInputShapeBinding)
    (
        "[E] 3: [executionContext.cpp::setInputShapeBinding::1016] Error Code 3: API Usage Error (Parameter check "
        "failed at: runtime/api/executionContext.cpp::setInputShapeBinding::1016, condition: data[i] <= "
        "profileMaxShape[i]. Supplied binding shapes [2,8,10,6] for bindings[1] exceed min ~ max range at index 1, "
        "maximum shape in profile is 5, minimum shape in profile is 1, but supplied shape is 8.\n",
        "runtime-assumption",
        "shape-outside-engine-profile",
    ),
    # --- XLA executable compiled for another GPU model
    (_case("jax-jit-executable-on-different-gpu-model"), "runtime-assumption", "executable-device-mismatch"),
    (
        "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: executable is built for device CUDA:0 of type "
        '"NVIDIA A100-SXM4-40GB"; cannot run it on device CUDA:1 of type "Tesla V100-SXM2-16GB"\n',
        "runtime-assumption",
        "executable-device-mismatch",
    ),
    # --- more GPUs asked for than present
    (_case("keras-multi-gpu-model-two-gpus-on-one-gpu-machine"), "runtime-assumption", "device-count-assumption"),
    # matterport/Mask_RCNN parallel_model.py's copy of the Keras check
    (
        "ValueError: To call `ParallelModel` with `num_gpus=4`, we expect the following devices to be available: "
        "['/cpu:0', '/gpu:0', '/gpu:1', '/gpu:2', '/gpu:3']. However this machine only has: ['/cpu:0', '/gpu:0']. "
        "Try reducing `num_gpus`.\n",
        "runtime-assumption",
        "device-count-assumption",
    ),
    # --- the DCGM host engine
    (_case("dcgm-hostengine-unreachable-amd-instance"), "environment", "service-configuration"),
    (_case("dcgm-remote-host-hostengine-binds-localhost"), "environment", "service-configuration"),
    # DCGM's python bindings (dcgm_structs.py, DCGMError_ConnectionNotValid)
    (
        "dcgm_structs.DCGMError_ConnectionNotValid: Host engine connection invalid/disconnected\n",
        "environment",
        "service-configuration",
    ),
    # --- a launch dimension of the wrong Python type
    (_case("pycuda-grid-dimension-is-float"), "kernel-logic", "launch-config-type-error"),
    # Boost.Python's converter (src/converter/from_python.cpp) on a numpy float
    (
        "Boost.Python.ArgumentError: No registered converter was able to produce a C++ rvalue of type unsigned "
        "int from this Python object of type numpy.float64\n",
        "kernel-logic",
        "launch-config-type-error",
    ),
    # Numba's own check of the launch configuration (numba/cuda/errors.py, normalize_kernel_dimensions)
    ("TypeError: griddim must be a sequence of integers, got [39.0625]\n", "kernel-logic", "launch-config-type-error"),
    # --- a pynvml module from another package than the caller expects
    # holdout8 pynvml-unofficial-package-missing-private-symbol
    (_case("pynvml-unofficial-package-missing-private-symbol"), "environment", "version-skew"),
    # CPython 3.12's wording with its suggestion, for a public name of nvidia-ml-py's pynvml.py
    (
        "AttributeError: module 'pynvml' has no attribute 'nvmlDeviceGetComputeRunningProcesses_v3'. "
        "Did you mean: 'nvmlDeviceGetComputeRunningProcesses_v2'?\n",
        "environment",
        "version-skew",
    ),
    # --- the driver's status as a Rust binding prints it
    (_case("rust-gpu-tools-k80-no-binary-for-gpu"), "environment", "no-kernel-image-for-arch"),
]


@pytest.mark.parametrize(("text", "category", "mode"), CASES)
def test_a_message_that_states_its_cause_decides(text: str, category: str, mode: str) -> None:
    assert _decided(text)[:2] == (category, mode)


def test_one_unbuilt_optional_operator_does_not_decide() -> None:
    # fa3F "operator wasn't built" beside cutlassF's alignment reason: the alignment decides, not the build
    text = _case("xformers-attn-bias-stride-not-multiple-of-8")
    assert "operator wasn't built" in text
    assert _decided(text)[:2] != ("environment", "library-missing")


def test_the_build_without_cuda_outranks_the_capability_line() -> None:
    # holdout8 #15: the capability line of fa2F is in the log, yet no GPU would run this build
    report = _classify(_case("supir-xformers-without-cuda-ops"))
    assert report.diagnosis is not None and report.diagnosis.rule == "xformers-not-built-with-cuda"
    assert "newer GPU" not in (report.diagnosis.best.fix if report.diagnosis.best else "")


def test_the_supported_driver_range_below_is_still_driver_too_old() -> None:
    # CUDA.jl 4.x's lower bound (src/initialization.jl): the older family keeps deciding it
    text = "Error: This version of CUDA.jl only supports NVIDIA drivers for CUDA 11.x or higher (yours is for CUDA 10.2.0)\n"
    assert _decided(text)[:2] == ("environment", "driver-too-old")


@pytest.mark.parametrize(
    "text",
    [
        # a negative into an unsigned type is a sign error, not a size past 2^31 (Julia; NumPy 2.4.6, run here)
        "ERROR: InexactError: trunc(UInt32, -1)\n",
        "OverflowError: Python integer -1 out of bounds for uint32\n",
    ],
)
def test_an_int32_conversion_of_a_small_value_is_not_overflow(text: str) -> None:
    report = _classify(text)
    assert report.diagnosis is None or report.diagnosis.failure_mode != "int32-index-overflow"


def test_no_gpu_at_all_is_not_a_device_count_assumption() -> None:
    # the Keras check when TensorFlow sees no GPU: the environment's failure, not the code's GPU count
    text = (
        "ValueError: To call `multi_gpu_model` with `gpus=2`, we expect the following devices to be available: "
        "['/cpu:0', '/gpu:0', '/gpu:1']. However this machine only has: ['/cpu:0']. Try reducing `gpus`.\n"
    )
    report = _classify(text)
    assert report.diagnosis is None or report.diagnosis.failure_mode != "device-count-assumption"


def test_a_connection_error_gets_no_numerical_check() -> None:
    # review of holdout8 #66: the deciding check named a CPU reference and memcheck for a network error
    report = _classify(_case("dcgm-remote-host-hostengine-binds-localhost"))
    text = (next_check(report) or "") + (
        report.diagnosis.best.fix if report.diagnosis and report.diagnosis.best else ""
    )
    assert "nv-hostengine" in text and "memcheck" not in text


@pytest.mark.parametrize(
    ("line", "name"),
    [
        # rust-gpu-tools (GPUError::Cuda(rustacuda CudaError) in a Debug print), holdout8 #47
        ("called `Result::unwrap()` on an `Err` value: Cuda(NoBinaryForGpu)", "cudaErrorNoKernelImageForDevice"),
        # rustacuda / cust's enum path (src/error.rs: InvalidPtx = 218)
        ("Error: CudaError::InvalidPtx", "cudaErrorInvalidPtx"),
    ],
)
def test_rust_binding_variants_map_to_the_runtime_error(line: str, name: str) -> None:
    facts = cuda_errors.parse(line)
    assert facts is not None and facts.error == name and facts.form == "rust"


def test_an_unknown_variant_after_cuda_is_no_cuda_error() -> None:
    assert cuda_errors.parse("let x = Cuda(SomethingElse);") is None
