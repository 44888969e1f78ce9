"""Owners, fixes and confidences that fit what the log shows.

Fixture lines are logs of labelled dev cases (corpus id given) or messages the tools print (tool and
source named), with at least one other wording per family, so a rule is not tied to one report.
"""

from __future__ import annotations

import io
from pathlib import Path

import yaml

from diagnose.classify import classify_record
from diagnose.collectors import collect, location
from diagnose.inputs import InputRecord
from diagnose.matcher import Diagnosis, Matcher
from diagnose.report import write_jsonl, write_markdown, write_table
from diagnose.rules import default_rules
from diagnose.unmatched import hint_for

MATCHER = Matcher(default_rules())
CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def diagnosis(text: str) -> Diagnosis:
    d = classify_record(InputRecord(id="t", text=text), MATCHER).diagnosis
    assert d is not None
    return d


def fix_of(d: Diagnosis) -> str:
    assert d.best is not None
    return d.best.fix


# --- an ATen input-bound assert is the caller's index, whatever the quoting ----------------------------

# corpus/holdout8 transformers-lm-finetune-custom-tokenizer-embedding-assert (huggingface/transformers#1848)
EMBEDDING_QUOTED = (
    "CUDA runtime error (59) : device-side assert triggered\nAssertion 'srcIndex < srcSelectDimSize' failed\n"
)
# the same condition in glibc's __assert_fail format (backtick, then a plain quote), ScatterGatherKernel.cu's check
SCATTER_GLIBC = (
    "ScatterGatherKernel.cu:163: Assertion `idx_dim >= 0 && idx_dim < index_size' failed\n"
    "torch.AcceleratorError: CUDA error: device-side assert triggered\n"
)
# the CUDA device-assert format (pytorch aten/src/ATen/native/cuda/Loss.cu, nll_loss's label check)
NLL_DEVICE = (
    "/pytorch/aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
    "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered\n"
)
# a project's own assert in the same device-assert format (CUDA C++ Programming Guide, assert())
OWN_ASSERT = (
    "kernel.cu:40: void my_kernel(float*, int): block: [0,0,0], thread: [3,0,0] Assertion `i < n` failed.\n"
    "RuntimeError: CUDA error: device-side assert triggered\n"
)


def test_aten_bound_asserts_are_the_callers_index_in_every_quoting() -> None:
    for text in (EMBEDDING_QUOTED, SCATTER_GLIBC, NLL_DEVICE):
        d = diagnosis(text)
        assert d.category == "runtime-assumption", text
        assert d.rule in ("torch-device-assert-input-range", "cuda-device-assert-library-input-check"), text
        assert not d.contested and d.confidence >= 0.6, (text, d.confidence)
    assert diagnosis(OWN_ASSERT).category != "runtime-assumption"


# --- a bare status says at most 0.6 --------------------------------------------------------------------

# corpus/holdout8 torch-index-large-mask-gather-grid-overflow (pytorch/pytorch#164048)
CONFIG_BARE = "invalid configuration argument\n"
# torch's wording of the same status (c10/cuda/CUDAException.h: "CUDA error: " + cudaGetErrorString)
CONFIG_TORCH = "RuntimeError: CUDA error: invalid configuration argument\n"
# corpus/holdout8 torch-batch-norm-backward-empty-invstd-null-read (pytorch/pytorch#189831)
SANITIZER_HEADER = "========= COMPUTE-SANITIZER\n========= Invalid __global__ read of size 4 bytes\n"
# compute-sanitizer's write record header (compute-sanitizer docs, memcheck "Invalid __global__ write")
SANITIZER_WRITE_HEADER = "========= COMPUTE-SANITIZER\n========= Invalid __global__ write of size 8 bytes\n"
# corpus/holdout8 llamacpp-mmvq-quantize-block-size-oob-read (ggml-org/llama.cpp#2144): a full record
SANITIZER_RECORD = """========= Invalid __global__ read of size 1 bytes
=========     at 0xb10 in /home/slaren/code/llama.cpp/ggml-cuda.cu:1231:vec_dot_q4_0_q8_1(const void *, const block_q8_1 *, int)
=========     by thread (16,0,0) in block (0,3199,0)
=========     Address 0xdb257e402 is out of bounds
=========     and is 3 bytes after the nearest allocation at 0xdb2000000 of size 5760000 bytes
=========     Device Frame:/home/slaren/code/llama.cpp/ggml-cuda.cu:1388:void mul_mat_vec_q<(int)32, (int)4, block_q4_0, &vec_dot_q4_0_q8_1>(const void *, const void *, float *, int, int) [0xaf0]
"""


def test_a_bare_status_says_at_most_point_six() -> None:
    for text in (CONFIG_BARE, CONFIG_TORCH):
        d = diagnosis(text)
        assert d.findings and d.findings[0].confidence <= 0.6, (text, d.findings[0].confidence)
        # the cap is said where it lowered the calibrated value (a calibration already below it needs no note)
        capped = any("at most 0.60" in v for k, v in d.findings[0].facts if k == "confidence")
        assert capped or d.findings[0].confidence < 0.6, d.findings[0].facts
    # an out-of-bounds header with no kernel or address: the kernel's index and an input past the kernel's
    # contract fit it alike, so kdiag abstains and names both owners
    for text in (SANITIZER_HEADER, SANITIZER_WRITE_HEADER):
        d = diagnosis(text)
        assert d.category == "unknown" and d.rule == "sanitizer-oob-header-only", (text, d.category, d.rule)
        assert {"kernel-logic", "runtime-assumption"} <= {f.category for f in d.findings}, text
        assert all(f.confidence < 0.5 for f in d.findings), text
    # a record with kernel, address and allocation says clearly more than a header
    assert diagnosis(SANITIZER_RECORD).confidence >= 0.8


# --- the alternatives never say more than the answer ---------------------------------------------------

# corpus/holdout8 bitsandbytes-cpu-lib-undefined-symbol (bitsandbytes-foundation/bitsandbytes#156)
BNB = "bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: cget_col_row_stats\n"


def test_no_alternative_is_listed_above_the_answer() -> None:
    d = diagnosis(BNB)
    assert d.rule == "bnb-cpu-library-used-on-gpu" and len(d.findings) > 1
    logs = [BNB]
    for name in ("public/real-dev.yaml", "holdout/issues.yaml", "holdout2/issues.yaml", "holdout3/issues.yaml"):
        logs += [str(c.get("log") or "") for c in yaml.safe_load((CORPUS / name).read_text(encoding="utf-8"))]
    for text in logs:
        d = diagnosis(text)
        if d.findings:
            assert all(a.confidence <= d.findings[0].confidence for a in d.findings[1:]), text[:120]


# --- every output format lists kernel-logic for a bare illegal address ---------------------------------

# corpus/holdout8 deepspeed-transformer-kernel-ima-validation (deepspeedai/DeepSpeed#765)
IMA_TORCH = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
# CuPy's wording (cupy_backends/cuda/api/runtime.pyx: CUDARuntimeError, "cudaErrorIllegalAddress: ...")
IMA_CUPY = "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered\n"


def test_bare_illegal_address_lists_kernel_logic_in_every_format() -> None:
    for text in (IMA_TORCH, IMA_CUPY):
        report = classify_record(InputRecord(id="t", text=text), MATCHER)
        assert report.category == "unknown"
        for write in (write_markdown, write_jsonl, lambda rs, out: write_table(rs, out, detail=True)):
            out = io.StringIO()
            write([report], out)
            assert "kernel-logic" in out.getvalue(), write


# --- ptxas reads the direction; nvcc's mode is the toolkit's --------------------------------------------

# corpus/holdout8 cudanative-cuda9-ptxas-drops-sm20 (JuliaGPU/CUDAnative.jl#103)
PTXAS_SM20 = "ptxas fatal   : Value 'sm_20' is not defined for option 'gpu-name'\n"
# the same message (ptxas 13.0.88, strings: "Value '%s' is not defined for option '%s'") for Kepler sm_30
PTXAS_SM30 = "ptxas fatal : Value 'sm_30' is not defined for option 'gpu-name'\n"
# corpus/public/real-dev.yaml lightllm-triton20-sm89 (ModelTC/LightLLM#176): a newer arch, an older ptxas
PTXAS_SM89 = "ptxas fatal : Value 'sm_89' is not defined for option 'gpu-name'\n"
# tests/fixtures/triton/ptxas-unknown-arch.log (excerpt): Triton's own ptxas on a made-up newer arch
PTXAS_TRITON = """triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error
`ptxas` stderr:
ptxas-blackwell fatal   : Value 'sm_130a' is not defined for option 'gpu-name'
"""
# corpus/holdout8 correlation-ext-compute86-cuda110 (ClementPinard/Pytorch-Correlation-extension#54)
NVCC_86 = "nvcc fatal : Unsupported gpu architecture 'compute_86'\n"


def test_ptxas_unknown_arch_reads_the_direction_and_the_framework() -> None:
    for text in (PTXAS_SM20, PTXAS_SM30):
        d = diagnosis(text)
        assert (d.category, d.failure_mode) == ("environment", "toolkit-dropped-arch"), text
        assert "Triton" not in fix_of(d) and "upgrade Triton" not in fix_of(d)
    d = diagnosis(PTXAS_SM89)
    assert d.failure_mode == "ptxas-too-old-for-arch" and "Triton" not in fix_of(d)
    d = diagnosis(PTXAS_TRITON)
    assert d.failure_mode == "ptxas-too-old-for-arch" and "TRITON_PTXAS_PATH" in fix_of(d)
    d = diagnosis(NVCC_86)
    assert (d.category, d.failure_mode) == ("environment", "toolkit-too-old-for-arch")


# --- NVML: a refused privileged call after the device was read is root's -------------------------------

# corpus/holdout8 nvml-nvlink-counters-admin-only-permissions (gpuopenanalytics/pynvml#19)
NVLINK = """(base) bzaitlen@dgx15:~$ nvidia-smi nvlink -g 0
GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-96ab329d-7a1f-73a8-a9b7-18b4b2855f92)
NVML: Unable to get the NvLink link utilization counter control for link 0: Insufficient Permissions
"""
# NVIDIA/nvidia-docker#495: nvidia-smi setting a power limit
POWER = """root@a09a42caceb9:/# nvidia-smi -i 0 -pl 120
Failed to set power management limit for GPU 00000000:01:00.0: Insufficient Permissions
"""
# NVIDIA/nvidia-container-toolkit#268: NVML cannot even initialise (the device-node case)
INIT = "$ nvidia-smi\nFailed to initialize NVML: Insufficient Permissions\n"


def test_nvml_privileged_call_refused_needs_root_not_device_nodes() -> None:
    for text in (NVLINK, POWER):
        d = diagnosis(text)
        assert (d.category, d.rule) == ("environment", "env-nvml-privileged-operation"), text
        assert "root" in fix_of(d) and "usermod" not in fix_of(d)
    assert "RmProfilingAdminOnly" in fix_of(diagnosis(NVLINK))
    d = diagnosis(INIT)
    assert d.category == "environment" and d.rule != "env-nvml-privileged-operation"


# --- one family, one confidence: a double atomicAdd below sm_60 ------------------------------------------

# corpus/holdout8 tandem-atomicadd-double-below-sm60 (tum-vision/tandem#11): a const operand
ATOMIC_CONST = """cuda_coarse_tracker_private.cu(355): error: no instance of overloaded function "atomicAdd" matches the argument list
            argument types are: (double *, const double)
"""
# qwopqwop200/GPTQ-for-LLaMa#58: the same overload, a plain operand
ATOMIC_PLAIN = """quant_cuda_kernel.cu(149): error: no instance of overloaded function "atomicAdd" matches the argument list
            argument types are: (double *, double)
"""


def test_the_same_atomic_overload_gets_the_same_rule_and_confidence() -> None:
    a, b = diagnosis(ATOMIC_CONST), diagnosis(ATOMIC_PLAIN)
    assert a.rule == b.rule == "nvcc-atomic-overload-needs-arch"
    assert a.confidence == b.confidence


# --- a library's own source tree is not told to upgrade the library -------------------------------------

# flash-attn's wheel as built on a CI runner (its compile-time path): an installed release
CI_BUILD = """========= Invalid __global__ read of size 4 bytes
=========     at 0x10 in /home/runner/work/flash-attention/csrc/flash_fwd.cu:12:flash_fwd_kernel
"""
# the same library under a virtualenv in the person's home: installed, not a checkout
VENV = """========= Invalid __global__ read of size 4 bytes
=========     at 0x10 in /home/alice/venv/lib/python3.11/site-packages/flash_attn/csrc/flash_fwd.cu:12:flash_fwd_kernel
"""


def test_a_source_checkout_of_the_library_is_not_told_to_upgrade_it() -> None:
    facts = location.parse(SANITIZER_RECORD)
    assert facts is not None and facts.kind == "library" and facts.checkout
    for text in (CI_BUILD, VENV):
        facts = location.parse(text)
        assert facts is not None and facts.kind == "library" and not facts.checkout, text
    fix = fix_of(diagnosis(SANITIZER_RECORD))
    assert "source tree of your own" in fix and "Upgrade ggml" not in fix


# --- a compiler's own verifier: no tail-mask advice for generated code ---------------------------------

# corpus/holdout8 jax-triton-fusion-miscompile-sm120 (jax-ml/jax#39486)
XLA_VERIFIER = "triton_fusion_numerics_verifier.cc:270: Output buffer does not match reference buffer\n"
# TorchInductor's accuracy minifier (torch 2.x torch/_dynamo/repro/after_aot.py)
INDUCTOR_ACCURACY = "torch._dynamo.debug_utils.AccuracyError: Bad accuracy detected\n"


def test_generated_code_mismatch_gets_no_mask_advice() -> None:
    for text in (XLA_VERIFIER, INDUCTOR_ACCURACY):
        hint = hint_for(collect(text))
        assert hint is not None and hint.kind == "generated-code-wrong-result", text
        assert "mask" not in hint.check.replace("no mask", "") and "environment" in [
            c.category for c in hint.candidates
        ]


# --- an OOM with no device totals: problem size and other tenants print it alike -----------------------

# corpus/holdout8 nemos-vectorized-convolution-oom (flatironinstitute/nemos#345), first line
XLA_OOM = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 3199993600 bytes.\n"
# XLA's other allocation message (xla_cuda_plugin.so strings: "Failed to allocate request for %s (%uB) on device ordinal %d")
XLA_REQUEST = (
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 12.00GiB "
    "(12884901888B) on device ordinal 0\n"
)
# PyTorch's OOM with the device's figures (c10/cuda/CUDACachingAllocator.cpp's message): this process holds it
TORCH_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
    "of which 10.00 GiB is free. Including non-PyTorch memory, this process has 69.14 GiB memory in use. Of the "
    "allocated memory 68.00 GiB is allocated by PyTorch, and 500.00 MiB is reserved by PyTorch but unallocated.\n"
)


def test_an_oom_without_device_figures_says_at_most_point_six() -> None:
    for text in (XLA_OOM, XLA_REQUEST):
        d = diagnosis(text)
        assert d.failure_mode == "oom-problem-size" and d.confidence <= 0.6, (text, d.confidence)
    d = diagnosis(TORCH_OOM)
    assert d.failure_mode == "oom-problem-size" and d.confidence > 0.8
