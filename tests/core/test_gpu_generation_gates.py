"""Messages of a tool that checks the GPU's generation against what it supports: XLA's gate on its Triton code
generator (diagnose/data/catalogue/xla-triton-arch-gate.yaml), TensorRT's builder on a GPU its release does not
know or no longer supports (tensorrt-unsupported-sm.yaml), Triton's shared-memory limit quoted without its figures
and TensorRT's start-up check of CUDA, whose status is a bare number. The lines are real (the issue named beside
each) or the tool's template filled in (named "template")."""

from __future__ import annotations

import pytest

from diagnose.catalogue import default_catalogue
from diagnose.collectors.families import facts_from
from tests.core.corpus_logs import corpus_log, decided, verdict

CAT = default_catalogue()


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        # jax-ml/jax#26799: the Pallas quickstart on a T4 (compute capability 7.5)
        (
            corpus_log("holdout16", "h16b-pallas-gpu-t4-below-ampere"),
            "concept-cc-below-requirement",
            "runtime-assumption",
        ),
        # template of xla/service/gpu/fusions/triton/triton_support.cc, on a V100
        (
            "FAILED_PRECONDITION: CUDA Triton support is only enabled for Ampere GPUs (compute capability 8.0) "
            "and up, but got compute capability 7.0.",
            "concept-cc-below-requirement",
            "runtime-assumption",
        ),
        # wang-xinyu/tensorrtx#819: TensorRT 7.0 on an RTX 3080
        (
            "[11/15/2021-17:51:03] [F] [TRT] Assertion failed: Unsupported SM.\n"
            "../rtSafe/cuda/caskUtils.cpp:80\n"
            "Aborting...\n"
            "[11/15/2021-17:51:03] [E] [TRT] ../rtSafe/cuda/caskUtils.cpp (80) - Assertion Error in trtSmToCask: 0 "
            "(Unsupported SM.)",
            "tensorrt-unsupported-sm-assertion",
            "environment",
        ),
        # NVIDIA/TensorRT#975: the FP16 warning first, then the assertion (TensorRT 7.1.3, RTX 3060 Ti)
        (
            "[12/19/2020-21:29:35] [W] [TRT] Half2 support requested on hardware without native FP16 support, "
            "performance will be negatively affected.\n"
            "[12/19/2020-21:29:36] [E] [TRT] ../rtSafe/cuda/caskUtils.cpp (98) - Assertion Error in trtSmToCask: 0 "
            "(Unsupported SM.)\n"
            "main: /workspace/xxx/main.cpp:27: int main(int, char**): Assertion `engine != nullptr' failed.",
            "tensorrt-unsupported-sm-assertion",
            "environment",
        ),
        # wang-xinyu/tensorrtx#1610: TensorRT 8.2 on an RTX 4090 (SM 8.9, newer than the release)
        (
            "[12/12/2024-10:15:17] [E] [TRT] 1: [caskUtils.cpp::trtSmToCask::147] Error Code 1: Internal Error "
            "(Unsupported SM: 0x809)",
            "tensorrt-unsupported-sm-assertion",
            "environment",
        ),
        # NVIDIA/TensorRT#3826 (corpus/holdout19): TensorRT 10.0.1 on a GTX 1080 Ti (SM 6.1, older than the
        # release's minimum): the same wording, the other end of the support matrix
        (
            corpus_log("holdout19", "h19a-tensorrt10-pascal-unsupported-sm"),
            "tensorrt-gpu-below-release-minimum",
            "runtime-assumption",
        ),
        # NVIDIA/TensorRT#1035: TensorRT 7.2's NVRTC check on an RTX 3070
        (
            '[01/29/2021-10:26:48] [F] [TRT] Assertion failed: (smVersion < SM_VERSION_A100) && "SM version not '
            'supported in this NVRTC version"',
            "tensorrt-unsupported-sm-assertion",
            "environment",
        ),
        # corpus/holdout16 h16b-insightface-rest-trt-error-222-old-driver (SthPhoenix/InsightFace-REST#24): 222 is
        # cudaErrorUnsupportedPtxVersion, a driver older than the PTX TensorRT carries
        (
            corpus_log("holdout16", "h16b-insightface-rest-trt-error-222-old-driver"),
            "cuda-unsupported-ptx-version",
            "environment",
        ),
        # isarsoft/yolov4-triton-tensorrt#2: 35 is cudaErrorInsufficientDriver
        (
            "[08/20/2020-17:01:01] [E] [TRT] CUDA initialization failure with error 35. Please check your CUDA "
            "installation:  http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html\n"
            "Segmentation fault (core dumped)",
            None,  # the driver rules
            "environment",
        ),
        # Megvii-BaseDetection/YOLOX#515 (TensorRT 8): 2 is cudaErrorMemoryAllocation, no rule of its own at
        # start-up; TensorRT's check itself says CUDA could not start
        (
            "[TensorRT] INTERNAL ERROR: [runtime.cpp::isCudaInstalledCorrectly::41] Error Code 6: Internal Error "
            "(CUDA initialization failure with error 2. Please check your CUDA installation:  "
            "http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html)",
            "tensorrt-cuda-initialization-failure",
            "environment",
        ),
    ],
)
def test_generation_gates_decide(text: str, rule: str | None, category: str) -> None:
    got_category, _mode, got_rule = decided(text)
    assert got_category == category
    if rule is not None:
        assert got_rule == rule


def test_the_gate_without_numbers_abstains() -> None:
    # template of xla/service/gpu/transforms/softmax_rewriter_triton.cc: the GPU is not named
    status, category, _rule = verdict(
        "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: Triton support is only enabled for Ampere GPUs and up."
    )
    assert (status, category) == ("unknown", "unknown")


def test_a_cuda_failure_number_is_read_as_its_status() -> None:
    # bychen7/Face-Restoration-TensorRT#12's title (the CHECK macro of TensorRT's samples): 700 is an illegal
    # address, which the text alone does not assign to an owner
    status, _category, rule = verdict(corpus_log("holdout16", "h16b-face-restoration-trt-512-model-hardcoded-size"))
    assert (status, rule) == ("unknown", "cuda-illegal-address-text-only")


@pytest.mark.parametrize(
    ("text", "family"),
    [
        # NVIDIA/TensorRT#218's title: the FP16 warning alone, the build going on
        (
            "[TensorRT] WARNING: Half2 support requested on hardware without native FP16 support, performance will "
            "be negatively affected.",
            "tensorrt-half2-without-native-fp16",
        ),
        # jax-ml/jax#21121's title: LLVM drops a PTX version it does not know and goes on
        (
            "'+ptx84' is not a recognized feature for this target (ignoring feature)",
            "llvm-ptx-feature-not-recognized",
        ),
    ],
)
def test_a_warning_alone_gives_facts_and_no_failure(text: str, family: str) -> None:
    facts = facts_from(CAT, text)
    assert facts is not None and family in facts.families and not facts.failed
    assert verdict(text)[0] == "no-failure"


def test_the_feature_warning_about_host_features_is_not_the_gpu_toolchain() -> None:
    # pocl/pocl#1006: x86 features met while building for ARM, printed on a healthy build
    facts = facts_from(CAT, "'+sse2' is not a recognized feature for this target (ignoring feature)")
    assert facts is None or "llvm-ptx-feature-not-recognized" not in facts.families


def test_the_sm_version_tensorrt_prints_is_read_as_the_gpus_capability() -> None:
    # template of TensorRT 8.x-10.x's trtSmToCask: (major << 8) | minor in hexadecimal
    facts = facts_from(CAT, "Error Code 1: Internal Error (Unsupported SM: 0x700)")
    assert facts is not None and facts.have_cc == 7.0
    assert "tensorrt-gpu-below-release-minimum" in facts.families
    facts = facts_from(CAT, "Error Code 1: Internal Error (Unsupported SM: 0xa00)")
    assert facts is not None and facts.have_cc == 10.0
    assert "tensorrt-unsupported-sm-assertion" in facts.families


@pytest.mark.parametrize(
    "text",
    [
        # template of triton 3.7.1's runtime/errors.py, the message cut after the resource's name
        "triton.runtime.errors.OutOfResources: out of resource: shared memory",
        # kvcache-ai/ktransformers#1793 (corpus/holdout19): the same, in a sentence of another language
        corpus_log("holdout19", "h19a-ktransformers-fp8-moe-smem-sm89"),
    ],
)
def test_triton_shared_memory_without_figures_abstains_with_its_candidates(text: str) -> None:
    status, _category, rule = verdict(text)
    assert status == "unknown"
    assert rule == "triton-out-of-resource-smem-without-figures-as-runtime-assumption"


def test_triton_shared_memory_with_figures_still_decides() -> None:
    text = (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: "
        "101376. Reducing block sizes or `num_stages` may help."
    )
    assert decided(text)[2] == "triton-out-of-resources-smem"
