"""Families of the GPU tooling around the kernels (the container engine and nvidia-docker, the NVIDIA kernel
module's NVRM lines, DCGM, programs that parse nvidia-smi, vLLM's KV-cache check, Triton's launcher build,
triton-viz's sanitizer) and of a few framework refusals, each on a line of a development-set case (its id is
given) and on at least one other wording of the same family taken from the tool's own source or a capture made
here (the family's ``messages`` name the source)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.classify import classify_record
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from tests.core.corpus_logs import verdict

MATCHER = Matcher(default_rules())
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


IMA_LOAD = """\
🚨 ILLEGAL MEMORY ACCESS DETECTED 🚨
━━━ Code Context ━━━
  File: issue_10336_repro.py
  Function: oob_load_kernel
  Line 15:
    13 │     offs = tl.arange(0, 8)
    14 │     v = tl.load(vals_ptr + offs * SV, mask=offs < L, other=0)
→   15 │     b = tl.load(bins_ptr + offs * SB, mask=offs < L, other=-1)
━━━ Violation Details ━━━
  Violation address: 0x0000000029db29d8
End of IMA Diagnostic Report
"""
# the same report for a store, in the layout of triton_viz/clients/sanitizer/report.py (print_oob_record_pdb_style)
IMA_STORE = """\
🚨 ILLEGAL MEMORY ACCESS DETECTED 🚨
━━━ Code Context ━━━
  File: copy.py
  Function: copy_kernel
  Line 9:
     8 │     x = tl.load(x_ptr + offs, mask=offs < n)
→    9 │     tl.store(y_ptr + offs, x)
End of IMA Diagnostic Report
"""
# the older report of the same tool (print_oob_record)
OOB_RECORD_STORE = """\
============================================================
                 Out-Of-Bounds Access Detected
============================================================
Operation: Store
Tensor Info: dtype=torch.float32, shape=torch.Size([1000]), device=cpu
"""


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        # corpus/holdout13 h13b-docker-gpus-no-container-toolkit (tonyyxliu/CUHKSZ-CSC4005#5)
        (
            'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
            "docker-gpu-request-no-device-driver",
            "environment",
        ),
        # moby daemon/errors.go with a named driver (compose `driver: nvidia`)
        (
            'Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]',
            "docker-gpu-request-no-device-driver",
            "environment",
        ),
        # corpus/holdout13 h13b-nvidia-docker-uvm-then-driver-older-than-image (NVIDIA/nvidia-docker#106)
        (
            "nvidia-docker | 2016/06/06 22:49:17 Error: Could not load UVM kernel module\n"
            "nvidia-docker | 2016/06/07 18:49:33 Error: unsupported CUDA version: driver 7.0 < image 7.5",
            "nvidia-docker-driver-older-than-image",
            "environment",
        ),
        # nvidia-docker 1.x src/docker/cuda.go with a three-part image version
        (
            "nvidia-docker | 2017/09/27 19:42:59 Error: unsupported CUDA version: driver 7.5 < image 8.0.61",
            "nvidia-docker-driver-older-than-image",
            "environment",
        ),
        # nvidia-docker 1.0.x src/nvidia/nvidia.go (LoadUVM), the later wording
        (
            "nvidia-docker-plugin | 2017/06/24 18:23:36 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?",
            "nvidia-docker-uvm-module-not-loaded",
            "environment",
        ),
        # corpus/holdout13 h13b-nvidia-docker-nvrm-api-mismatch-after-upgrade (NVIDIA/nvidia-docker#182)
        (
            "Aug 26 14:08:07 host kernel: NVRM: API mismatch: the client has the version 367.44, but\n"
            "                             NVRM: this kernel module has the version 367.35.  Please",
            "driver-api-version-mismatch",
            "environment",
        ),
        # the module's older check prints the client's version as %d.%d-%d (nv.c, the major-minor-patch API)
        (
            "[ 2679.964000] NVRM: API mismatch: the client has the version 1.0-9639, but",
            "driver-api-version-mismatch",
            "environment",
        ),
        # corpus/holdout13 h13b-nvidia-smi-nouveau-owns-device (mattshma/bigdata#133)
        (
            "[188497.595099] NVRM: No NVIDIA graphics adapter probed!",
            "driver-device-owned-by-another-driver",
            "environment",
        ),
        # open-gpu-kernel-modules kernel-open/nvidia/nv.c (nvidia_init_module)
        (
            "[   18.761437] NVRM: The NVIDIA probe routine was not called for 1 device(s).",
            "driver-device-owned-by-another-driver",
            "environment",
        ),
        # corpus/holdout13 h13b-dcgm-exporter-profiling-fields-on-quadro (NVIDIA/gpu-monitoring-tools#119)
        (
            'time="2020-10-27T00:53:32Z" level=fatal msg="Error watching fields: Profiling is not supported for this '
            'group of GPUs or GPU"',
            "dcgm-profiling-not-supported-on-gpu",
            "runtime-assumption",
        ),
        # newer dcgm-exporter logs the refusal at info level and runs on without the metrics it was asked for
        (
            'level=INFO msg="Not collecting DCP metrics: Profiling is not supported for this group of GPUs or GPU"',
            "dcgm-profiling-not-supported-on-gpu",
            "runtime-assumption",
        ),
        # dcgmi profile --list with DCGM's errorString(DCGM_ST_PROFILING_NOT_SUPPORTED)
        (
            "Error: Unable to Get supported metric groups: Profiling is not supported for this group of GPUs or GPU.",
            "dcgm-profiling-not-supported-on-gpu",
            "runtime-assumption",
        ),
        # corpus/holdout13 h13a-vllm-max-seq-len-exceeds-kv-cache (vllm-project/vllm#2418)
        (
            "ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be "
            "stored in KV cache (3664). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when",
            "vllm-kv-cache-too-small-for-max-model-len",
            "runtime-assumption",
        ),
        # vLLM V1 vllm/v1/core/kv_cache_utils.py (check_enough_kv_cache_memory), wrapped as pasted
        (
            "ValueError: To serve at least one request with the models's max seq len (131072), (4.00 GiB KV cache is\n"
            "needed, which is larger than the available KV cache memory (0.65 GiB). Based on the available memory, "
            "the estimated maximum model length is 21440.",
            "vllm-kv-cache-too-small-for-max-model-len",
            "runtime-assumption",
        ),
        # vllm/worker/worker.py (raise_if_cache_size_invalid, no block at all)
        (
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine.",
            "vllm-kv-cache-too-small-for-max-model-len",
            "runtime-assumption",
        ),
        # corpus/holdout13 h13a-vllm-turing-unified-attention-smem (vllm-project/vllm#57712): the line wrapped
        (
            "triton.runtime.errors.OutOfResources: out of resource: shared memory,\n"
            "Required: 98304, Hardware limit: 65536.\nReducing block sizes or `num_stages` may help.",
            "triton-out-of-resources-smem",
            "runtime-assumption",
        ),
        # triton 2.x's "Hardware limitation", wrapped before it
        (
            "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 131072,\n"
            "Hardware limitation: 101376. Reducing block sizes or `num_stages` may help.",
            "triton-out-of-resources-smem",
            "runtime-assumption",
        ),
        # corpus/holdout13 h13a-nvforum-ptx-sm13-on-sm10-card (NVIDIA developer forum thread 16205)
        (
            "ptxas fatal   : SM version specified by .target is higher than default SM version assumed\n"
            "error   : Ptx compilation failed: gpu='sm_10', device code='cuModuleLoadDataEx_92'",
            "ptxas-ptx-target-above-gpu",
            "runtime-assumption",
        ),
        # corpus/holdout13 h13b-tf-dense-bincount-gpu-empty-input-check-failure (tensorflow/tensorflow#59087)
        (
            "2023-01-04 02:11:11.516596: F ./tensorflow/core/util/gpu_launch_config.h:129] Check failed: "
            "work_element_count > 0 (0 vs. 0)\nAborted",
            "check-positive-count-got-zero",
            "kernel-logic",
        ),
        # tensorflow/core/util/gpu_launch_config.h GetGpu2DLaunchConfig: CHECK_GT(xdim, 0)
        (
            "F tensorflow/core/util/gpu_launch_config.h:195] Check failed: xdim > 0 (0 vs. 0)",
            "check-positive-count-got-zero",
            "kernel-logic",
        ),
        # corpus/holdout13 h13b-jax-tfds-preallocates-gpu-cudnn-conv-fails (jax-ml/jax#9454)
        (
            "RuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm for:",
            "xla-conv-algorithm-picker-failed",
            "environment",
        ),
        # XLA conv_algorithm_picker.cc, the strict mode's status through jaxlib's exception
        (
            "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm "
            "for:\n%cudnn-conv = (f32[1,32,32,64]{2,1,3,0}, u8[0]{0}) custom-call(...)\n\nOriginal error: "
            "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes.",
            "xla-conv-algorithm-picker-failed",
            "environment",
        ),
        # corpus/holdout13 h13a-inductor-triton-launcher-cannot-find-lcuda (pytorch/pytorch#103417)
        (
            "torch._dynamo.exc.BackendCompilerFailed: debug_wrapper raised CalledProcessError: Command "
            "'['/usr/bin/gcc', '/tmp/tmpu6tgmg13/main.c', '-O3', '-I/usr/local/cuda/include', "
            "'-I/usr/include/python3.10', '-I/tmp/tmpu6tgmg13', '-shared', '-fPIC', '-lcuda', '-o', "
            "'/tmp/tmpu6tgmg13/triton_.cpython-310-x86_64-linux-gnu.so']' returned non-zero exit status 1.",
            "triton-launcher-build-failed",
            "environment",
        ),
        # triton 3.7.1 runtime/build.py with its nvidia driver's libraries (["libcuda.so.1"]), run here
        (
            "subprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/tmpdir/cuda_utils.c', '-O3', '-shared', "
            "'-fPIC', '-Wno-psabi', '-o', '/tmp/tmpdir/cuda_utils.cpython-311-x86_64-linux-gnu.so', "
            "'-l:libcuda.so.1', '-L/usr/lib/x86_64-linux-gnu', '-I/tmp/tmpdir']' returned non-zero exit status 1.",
            "triton-launcher-build-failed",
            "environment",
        ),
        # corpus/holdout13 h13a-triton-mask-longer-than-strided-view (triton-lang/triton#10336)
        (IMA_LOAD, "triton-sanitizer-oob-load", "kernel-logic"),
        (IMA_STORE, "triton-sanitizer-oob-store", "kernel-logic"),
        (OOB_RECORD_STORE, "triton-sanitizer-oob-store", "kernel-logic"),
        # corpus/holdout13 h13a-vllm-blocksparse-attn-chunked-prefill-assert (vllm-project/vllm#7787)
        (
            '  File "/home/u/vllm/vllm/attention/backends/blocksparse_attn.py", line 404, in forward\n'
            "    or prefill_meta.block_tables.numel() == 0, \\\n"
            "AssertionError: Does not support prefix-enabled attention.",
            "shape-component-does-not-support-option",
            "runtime-assumption",
        ),
        # torch 2.13 torch/optim/_adafactor.py and torch/distributed/fsdp
        (
            "RuntimeError: Adafactor does not support sparse gradients",
            "shape-component-does-not-support-option",
            "runtime-assumption",
        ),
        (
            "RuntimeError: FSDP does not support CPU only execution",
            "shape-component-does-not-support-option",
            "runtime-assumption",
        ),
        # corpus/holdout13 h13b-sysmontask-nvidia-smi-encoder-util-na (KrispyCamel4u/SysMonTask#13)
        (
            "    self.gpuEncodingArray.append(int(gpuinfoRoot.find('gpu').find('utilization').find('encoder_util')"
            ".text[:-1]))\nValueError: invalid literal for int() with base 10: 'N/'",
            "nvidia-smi-na-field-parsed-as-number",
            "runtime-assumption",
        ),
        # CPython float() and Go strconv on nvidia-smi's CSV values for unsupported fields
        (
            "ValueError: could not convert string to float: '[N/A]'",
            "nvidia-smi-na-field-parsed-as-number",
            "runtime-assumption",
        ),
        (
            'panic: strconv.ParseFloat: parsing "[Not Supported]": invalid syntax',
            "nvidia-smi-na-field-parsed-as-number",
            "runtime-assumption",
        ),
    ],
)
def test_family_decides(text: str, rule: str, category: str) -> None:
    status, got_category, got_rule = verdict(text)
    assert (got_rule, got_category) == (rule, category), (status, got_rule)


@pytest.mark.parametrize(
    ("text", "not_rule"),
    [
        # a count that wrapped to a large negative value is the int32 family, not an empty input
        (
            "F tensorflow/core/util/gpu_launch_config.h:129] Check failed: work_element_count > 0 (-1018167296 vs. 0)",
            "check-positive-count-got-zero",
        ),
        # XLA's non-strict mode only warns and goes on with a fallback algorithm
        (
            "W external/xla/xla/service/gpu/conv_algorithm_picker.cc:850] Failed to determine best cudnn "
            "convolution algorithm for:\n%cudnn-conv = ...\n\nAs a result, convolution performance may be suboptimal.",
            "xla-conv-algorithm-picker-failed",
        ),
        # a build of other C/C++ code that does not link libcuda is not Triton's launcher
        (
            "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
            "triton-launcher-build-failed",
        ),
        # the toolchain's own refusals belong to environment families
        (
            "RuntimeError: PTX version 8.8 does not support target 'sm_107a'",
            "shape-component-does-not-support-option",
        ),
        ("ValueError: This GPU does not support bfloat16", "shape-component-does-not-support-option"),
        # a value that is not nvidia-smi's
        ("ValueError: invalid literal for int() with base 10: 'abc'", "nvidia-smi-na-field-parsed-as-number"),
        # a probe that failed is a GPU the driver saw and could not bring up, not one another driver owns
        (
            "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).",
            "driver-device-owned-by-another-driver",
        ),
    ],
)
def test_family_stays_out(text: str, not_rule: str) -> None:
    assert verdict(text)[2] != not_rule


def test_dcp_metrics_skipped_for_another_reason_is_an_abstention_with_the_deciding_check() -> None:
    """corpus/holdout10 dcgm-exporter-m60-dcp-profiling-unsupported (NVIDIA/dcgm-exporter#395): the profiling
    module is not loaded, which an unsupported GPU and a misconfigured host engine both give."""
    text = (
        "Not collecting DCP metrics: This request is serviced by a module of DCGM that is not currently loaded\n"
        "Skipping line 19 ('DCGM_FI_PROF_GR_ENGINE_ACTIVE'): metric not enabled\n"
    )
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.status != "no-failure" and report.category == "unknown"
    assert "dcgmi profile --list" in str(report.to_dict())


def test_launcher_link_error_keeps_its_specific_family() -> None:
    """With the linker's line in the log, the family that names the missing libcuda answers, not the generic one."""
    log = (FIXTURES / "triton" / "launcher-link-no-libcuda.log").read_text()
    assert verdict(log)[2] == "triton-launcher-no-libcuda"
