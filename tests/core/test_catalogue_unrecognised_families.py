"""Families for failures the log decides but kdiag used not to recognise: the GPU lost from the PCI bus
(NVRM, quoted as "off of the bus"), a program's failure line ending in NVML's "Not Supported", TensorRT's
assertion on a cuBLAS status, a fused softmax kernel's refusal of a sequence length, the repr of Triton's
OutOfResources, FlashInfer's dispatch of a tile size it derived itself, a run-time (NVRTC) compile that
includes the host C library, and two that abstain with ranked candidates: StreamExecutor's invalid DNN data
type and Warp's missing overload.

Each family is tested on the line of a development case (its id and public source in the comment) and on
at least one other wording of the same tool (its source or documentation, cited in the family's
``messages``), and on nearby lines it must not take."""

from __future__ import annotations

import pytest

from diagnose.classify import classify_record
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from tests.core.corpus_logs import verdict

MATCHER = Matcher(default_rules())


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        # corpus/holdout3 rtx3070ti-xid79-fallen-off-bus (NVIDIA/open-gpu-kernel-modules#507)
        ("GPU has fallen off of the bus\n", "env-gpu-fallen-off-bus", "environment"),
        # open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c (nv_printf, NV_ERR_GPU_IS_LOST)
        (
            "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
            "NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
            "NVRM: fallen off the bus and is not responding to commands.\n",
            "env-gpu-fallen-off-bus",
            "environment",
        ),
        # corpus/holdout11 xinference-gb10-nvml-memory-info-not-supported (xorbitsai/inference#4990)
        ("Fail to get GPU info: Not Supported\n", "nvml-not-supported-reported", "runtime-assumption"),
        # corpus/holdout5 dra-driver-nvml-meminfo-not-supported-gb10 (kubernetes-sigs/dra-driver-nvidia-gpu#1073):
        # go-nvml's Return.Error() (nvmlErrorString) wrapped by a Go error chain
        (
            "Error: error creating driver: error visiting device: error getting info for GPU 0: "
            "error getting memory info for device 0: Not Supported\n",
            "nvml-not-supported-reported",
            "runtime-assumption",
        ),
        # pynvml's str(NVMLError) after a program's own words (nvidia-ml-py 13.615.71, pynvml.py)
        (
            "ERROR: unable to query power usage of GPU 1: Not Supported\n",
            "nvml-not-supported-reported",
            "runtime-assumption",
        ),
        # corpus/holdout12 tensorrt-trtexec-cublaslt-heuristic-assertion (NVIDIA/TensorRT#2437), TensorRT 8.2
        (
            "[10/28/2022-14:23:32] [E] Error[2]: [ltWrapper.cpp::setupHeuristic::327] Error Code 2: Internal "
            "Error (Assertion cublasStatus == CUBLAS_STATUS_SUCCESS failed. )\n",
            "tensorrt-cublaslt-status-assertion",
            "environment",
        ),
        # TensorRT 7.2, quoted in open-mmlab/mmdeploy docs/en/faq.md
        (
            "error: [TensorRT] INTERNAL ERROR: Assertion failed: cublasStatus == CUBLAS_STATUS_SUCCESS\n",
            "tensorrt-cublaslt-status-assertion",
            "environment",
        ),
        # TensorRT 7.x on Windows (rtSafe/cublas/cublasLtWrapper.cpp)
        (
            "C:\\source\\rtSafe\\cublas\\cublasLtWrapper.cpp (279) - Assertion Error in "
            "nvinfer1::CublasLtWrapper::getCublasLtHeuristic: 0 (cublasStatus == CUBLAS_STATUS_SUCCESS)\n",
            "tensorrt-cublaslt-status-assertion",
            "environment",
        ),
        # corpus/holdout6 deepspeed-softmax-backward-special-seq-length (deepspeedai/DeepSpeed#2636)
        (
            "RuntimeError: Special sequence length found in softmax backward\n",
            "softmax-special-sequence-length",
            "runtime-assumption",
        ),
        # LightSeq csrc/kernels/softmax_kernels.cu (launch_attn_softmax_bw)
        (
            "RuntimeError: Special sequence length found in softmax backward, seq_len: 4096\n",
            "softmax-special-sequence-length",
            "runtime-assumption",
        ),
        # corpus/holdout12 triton-kernels-blackwell-mxfp-tmem-columns (triton-lang/triton#11358): the repr
        ("OutOfResources(576, 512, 'tensor memory')\n", "triton-out-of-resource-tensor-memory", "kernel-logic"),
        # triton 3.7.1 runtime/errors.py, str() of the same exception
        (
            "triton.runtime.errors.OutOfResources: out of resource: tensor memory, Required: 640, "
            "Hardware limit: 512. Reducing block sizes or `num_stages` may help.\n",
            "triton-out-of-resource-tensor-memory",
            "kernel-logic",
        ),
        # corpus/holdout11 vllm-gemma2-flashinfer-unsupported-max-frags-z-sm86 (vllm-project/vllm#6395)
        ("ValueError: Unsupported max_frags_z:\n", "flashinfer-derived-tile-dispatch-missing", "kernel-logic"),
        # flashinfer 0.2.x include/flashinfer/utils.cuh, DISPATCH_NUM_MMA_KV
        ("RuntimeError: Unsupported max_mma_kv: 0\n", "flashinfer-derived-tile-dispatch-missing", "kernel-logic"),
        # corpus/holdout3 cupy-rawmodule-host-code-stdio (cupy/cupy#4321): a host header NVRTC reached
        (
            'CompileException: /usr/include/stdio.h(33): catastrophic error: cannot open source file "stddef.h"\n',
            "nvrtc-host-library-header-included",
            "kernel-logic",
        ),
        # NVRTC 13.5.37 at the program's own include (tests/fixtures/catalogue-cuda/nvrtc-host-stdio-include)
        (
            'k.cu(1): catastrophic error: could not open source file "stdio.h" (no directories in search list)\n',
            "nvrtc-host-library-header-included",
            "kernel-logic",
        ),
    ],
)
def test_family_decides(text: str, rule: str, category: str) -> None:
    status, cat, got = verdict(text)
    assert (status, cat, got) == ("diagnosed", category, rule)


def test_triton_repr_of_shared_memory_is_the_shared_memory_family() -> None:
    # triton 3.7.1 runtime/errors.py: repr(OutOfResources(262144, 232448, 'shared memory'))
    report = classify_record(InputRecord(id="t", text="OutOfResources(262144, 232448, 'shared memory')\n"), MATCHER)
    assert report.evidence is not None and report.evidence.concept is not None
    assert "triton-out-of-resource-smem" in report.evidence.concept.families


@pytest.mark.parametrize(
    "text",
    [
        # nvidia-smi's and gpustat's healthy tables mark unsupported fields; no failure is printed
        "[0] GeForce GT 740M  | 64'C,  ?? % |   360 /  2004 MB | (Not Supported)\n",
        "    Power Draw                        : [Not Supported]\n",
        # a program's own assert on a cuBLAS status (glibc's format) is not TensorRT's builder
        "a.out: solver.cu:42: int main(): Assertion `cublasStatus == CUBLAS_STATUS_SUCCESS' failed.\n",
        # nvcc (host compiler's directories) not finding a C header is a broken host toolchain, not NVRTC
        'x.cu(1): catastrophic error: cannot open source file "stdio.h"\n',
        # a CuPy header's standard include is the CuPy build's (cupy-own-header-std-include-unresolved)
        'CompileException: /u/cupy/cupy/_core/include/cupy/carray.cuh(4): catastrophic error: cannot open source file "type_traits"\n',
        # a USB device, not a GPU
        "usb 1-2: device descriptor read/64, error -71\n",
    ],
)
def test_nearby_lines_are_not_taken(text: str) -> None:
    _, _, got = verdict(text)
    assert got not in {
        "nvml-not-supported-reported",
        "tensorrt-cublaslt-status-assertion",
        "env-gpu-fallen-off-bus",
        "softmax-special-sequence-length",
        "nvrtc-host-library-header-included",
    }


@pytest.mark.parametrize(
    "text",
    [
        # corpus/holdout12 jax-bf16-conv-invalid-dnn-data-type-cudnn-skew (jax-ml/jax#7866), cuda_dnn.cc
        "F external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_dnn.cc:1011] Invalid DNN data type: 7\n",
        # the same LOG(FATAL) of ToMIOpenDataType in xla/stream_executor/rocm/rocm_dnn.cc
        "F tensorflow/stream_executor/rocm/rocm_dnn.cc:181] Invalid DNN data type: 1\n",
    ],
)
def test_invalid_dnn_data_type_abstains_with_the_build_first(text: str) -> None:
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.status == "unknown" and report.diagnosis is not None and report.diagnosis.abstained
    got = [(f.category, f.failure_mode) for f in report.diagnosis.findings]
    assert got[0] == ("environment", "version-skew")
    assert ("runtime-assumption", "dtype-unexpected") in got


def test_flashinfer_caller_parameters_stay_with_the_generic_family() -> None:
    # flashinfer include/flashinfer/utils.cuh DISPATCH_HEAD_DIM: the caller's head_dim, not a derived tile
    _, _, got = verdict("RuntimeError: Unsupported head_dim: 106\n")
    assert got != "flashinfer-derived-tile-dispatch-missing"


@pytest.mark.parametrize(
    "text",
    [
        # corpus/holdout11 warp-fem-lookup-fp64-overload-mismatch (NVIDIA/warp#1660)
        "warp._src.codegen.WarpCodegenError:\nCouldn't find function overload for 'cell_lookup_...' that matched\n"
        "inputs with types: [Grid2DCellArg, vec2d, float64, int32, int32]\n",
        # warp 0.x warp/codegen.py raised a plain Exception with the same text
        "Exception: Couldn't find function overload for 'length' that matched inputs with types: [vec3d]\n",
    ],
)
def test_warp_overload_mismatch_abstains_with_the_kernel_code_first(text: str) -> None:
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.status == "unknown" and report.diagnosis is not None and report.diagnosis.abstained
    got = [(f.category, f.failure_mode) for f in report.diagnosis.findings]
    assert got[:2] == [("kernel-logic", "compile-source-error"), ("environment", "version-skew")]
