"""Who owns a failure inside a library, a toolkit header, or after a rejected input.

Fixture lines are the logs of labelled dev cases (corpus id given) or messages printed by the tools'
own sources (tool, file), one other wording per family to show the rule is not tied to one report.
"""

from __future__ import annotations

from diagnose.classify import classify_record
from diagnose.collectors import location
from diagnose.confidence import steps
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

RULES = default_rules()
MATCHER = Matcher(RULES)


def diagnose(text: str) -> tuple[str, str | None, tuple[tuple[str, str], ...]]:
    """(category, deciding or best-guess rule, every (category, rule) candidate)."""
    d = classify_record(InputRecord(id="t", text=text), MATCHER).diagnosis
    assert d is not None
    top = d.findings[0].rule if d.findings else None
    return d.category, d.rule or top, tuple((f.category, f.rule) for f in d.findings)


# --- a library's own launch rejected ------------------------------------------------------------------

# corpus/holdout7 koboldcpp-ggml-cuda-mmq-invalid-config (ggml's older CUDA_CHECK format)
KOBOLD = """Generating (1 / 1024 tokens)
CUDA error 9 at C:\\Users\\HCH\\Desktop\\koboldcpp\\ggml-cuda.cu:6858: invalid configuration argument
current device: 0
"""
# ggml's current ggml_cuda_error (ggml/src/ggml-cuda/ggml-cuda.cu): "CUDA error: %s" then
# "  current device: %d, in function %s at %s:%d"; function, path and line filled in here
GGML_NEW = """CUDA error: invalid configuration argument
  current device: 0, in function ggml_cuda_mul_mat at ggml/src/ggml-cuda/ggml-cuda.cu:1950
  cudaGetLastError()
"""
# corpus/holdout7 onnxruntime-training-biasgelugrad-invalid-config (ORT's executor message)
ORT = (
    "RuntimeError: Error in backward pass execution: Non-zero status code returned while running BiasGeluGrad_dX "
    "node. Name:'BiasGelu_token_112_Grad/BiasGeluGrad_dX_0' Status Message: CUDA error "
    "cudaErrorInvalidConfiguration:invalid configuration argument\n"
)


def test_library_sites_are_located_as_library() -> None:
    for text, lib in ((KOBOLD, "ggml"), (GGML_NEW, "ggml"), (ORT, "onnxruntime")):
        facts = location.parse(text)
        assert facts is not None and facts.kind == "library" and facts.library == lib, text


def test_library_launch_rejected_abstains_with_both_owners() -> None:
    for text in (KOBOLD, GGML_NEW, ORT):
        category, rule, candidates = diagnose(text)
        assert category == "unknown", text
        assert rule == "cuda-invalid-configuration-in-library"
        cats = {c for c, _ in candidates}
        assert {"kernel-logic", "runtime-assumption"} <= cats


def test_project_launch_rejected_still_blames_the_launch() -> None:
    # BVLC/caffe#1793: no library site, the generic rule answers
    category, rule, _ = diagnose("Check failed: error == cudaSuccess (9 vs. 0) invalid configuration argument\n")
    assert (category, rule) == ("runtime-assumption", "cuda-invalid-configuration")


# --- ATen's generic index assert ----------------------------------------------------------------------

# corpus/holdout7 baichuan-rope-cache-index-device-assert (the model's RoPE cache code computed the indices)
BAICHUAN = (
    "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [634,0,0], thread: [0,0,0] Assertion "
    '`index >= -sizes[i] && index < sizes[i] && "index out of bounds"` failed.\n'
)
# corpus/holdout3 silnlp-embedding-smaller-than-tokenizer-index-assert: newer wording of the same assert
SILNLP = (
    "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [31,0,0] Assertion "
    '`-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.\n'
)
# corpus/holdout6 litllama-pretrain-64k-tokenizer-embedding-assert: an embedding lookup (token ids: data)
EMBEDDING = (
    "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [316,0,0], thread: [62,0,0] "
    "Assertion `srcIndex < srcSelectDimSize` failed.\n"
)


def test_generic_index_assert_has_its_own_rule_and_the_model_code_candidate() -> None:
    for text in (BAICHUAN, SILNLP):
        _, rule, candidates = diagnose(text)
        assert rule == "cuda-device-assert-aten-index-out-of-bounds"
        assert "kernel-logic" in {c for c, _ in candidates}
    rule_obj = next(r for r in RULES if r.id == "cuda-device-assert-aten-index-out-of-bounds")
    assert "CUDA_LAUNCH_BLOCKING=1" in rule_obj.explain.fix


def test_embedding_assert_stays_the_callers() -> None:
    assert diagnose(EMBEDDING)[:2] == ("runtime-assumption", "cuda-device-assert-library-input-check")


# --- a rejected input before the crash; thread 0 of block 0 is no grid tail ---------------------------

OOB_WRITE = """========= Invalid __global__ write of size 4 bytes
=========     at ckMedian(const uchar4 *, unsigned int *, int, int, int)+0x1960
=========     by thread (0,3,0) in block (9495,0,0)
=========     Access at 0x7f538b9e93c0 is out of bounds
=========     and is 961 bytes after the nearest allocation at 0x7f538b200000 of size 8294400 bytes
"""


def test_rejected_input_before_the_oob_is_the_inputs() -> None:
    # corpus/holdout7 hecbench-medianfilter-invalid-ppm-oob-write; NVIDIA cuda-samples Common/helper_image.h
    for rejected in ("loadPPM() : Invalid image.", "__LoadPPM() : File is not a PPM or PGM image"):
        category, rule, _ = diagnose(f"{rejected}\n{OOB_WRITE}")
        assert (category, rule) == ("runtime-assumption", "concept-memory-error-on-generated-input"), rejected


def test_same_oob_without_a_rejected_input_is_a_tail_overrun() -> None:
    assert diagnose(OOB_WRITE)[:2] == ("kernel-logic", "sanitizer-oob-just-past-end")
    # a library that failed to load is not a rejected input
    category, _, _ = diagnose(f"failed to load library libnvrtc.so\n{OOB_WRITE}")
    assert category == "kernel-logic"


def test_first_thread_of_first_block_is_not_a_grid_tail() -> None:
    # corpus/holdout7 warp-sensor-contact-short-circuit-oob-read
    text = """========= Invalid __global__ read of size 4 bytes
=========     at select_aggregate_net_force_37e5c0c6_cuda_kernel_forward+0xd80
=========     by thread (0,0,0) in block (0,0,0)
=========     Access at 0x1ab203021c is out of bounds
=========     and is 5 bytes after the nearest allocation at 0x1ab2030200 of size 24 bytes
"""
    category, rule, _ = diagnose(text)
    assert category == "kernel-logic" and rule != "sanitizer-oob-just-past-end"


# --- compile errors inside toolkit headers under run-time compilation --------------------------------

# corpus/holdout7 cupy-jitify-warmup-cg-headers-cuda123 (Jitify's print_compile_log banner)
JITIFY = """E   RuntimeError: Runtime compilation failed
---------------------------------------------------
--- JIT compile log for cupy_jitify_exercise ---
---------------------------------------------------
cub/util_cpp_dialect.cuh(143): warning #161-D: unrecognized #pragma
       CUB_COMPILER_DEPRECATION_SOFT(C++14, C++11);
       ^

cooperative_groups/details/helpers.h(448): error: identifier "cudaCGGetIntrinsicHandle" is undefined
              return (cudaCGGetIntrinsicHandle(cudaCGScopeMultiGrid));
                      ^
"""
# the same header error named by its installed path, under CuPy's NVRTCError text
# (cupy_backends/cuda/libs/nvrtc.pyx: "NVRTC_ERROR_COMPILATION (6)"); a constructed combination
CUPY_NVRTC = """cupy.cuda.compiler.CompileException: /usr/local/cuda/include/cooperative_groups/details/helpers.h(453): error: identifier "cudaCGSynchronize" is undefined
NVRTC_ERROR_COMPILATION (6)
"""


def test_toolkit_header_errors_under_nvrtc_are_the_environments() -> None:
    for text in (JITIFY, CUPY_NVRTC):
        category, rule, _ = diagnose(text)
        # CuPy's own Jitify warm-up program (cupy_jitify_exercise) has a family of its own
        assert category == "environment", text
        assert rule in ("nvrtc-error-in-toolkit-headers", "cupy-jitify-warmup-compile-error"), (rule, text)


def test_a_warning_does_not_locate_the_failing_code() -> None:
    facts = location.parse(JITIFY)
    assert facts is None or facts.library != "CUB"


def test_own_source_error_under_nvrtc_stays_the_kernels() -> None:
    # the captured NVRTC undefined-identifier shape: an error in the program's own file
    text = 'kernel.cu(4): error: identifier "undefined_name" is undefined\nNVRTC_ERROR_COMPILATION (6)\n'
    assert diagnose(text)[0] == "kernel-logic"


# --- decisive sanitizer evidence in a library kernel --------------------------------------------------


def test_sanitizer_record_in_a_library_kernel_takes_no_library_penalty() -> None:
    rule = next(r for r in RULES if r.id == "sanitizer-misaligned-shared-local")
    base = {"location_kind": "library", "location_library": "cuDF", "sanitizer_kernel": "cudf::io::construct"}
    with_record = steps(rule, {**base, "sanitizer_first_kind": "misaligned-shared-read"})
    without = steps(rule, {**base, "sanitizer_kernel": None})
    assert not any("library" in why for _, why in with_record)
    assert any("library" in why for _, why in without)


# corpus/holdout7 cudf-inflate-kernel-misaligned-shared-read: the library's file:line in the record
CUDF_INFLATE = """========= Invalid __shared__ read of size 4 bytes
=========     at cudf::io::construct(cudf::io::inflate_state_s *, short *, short *, const short *, int)+0x22e0 in /home/coder/cudf/cpp/src/io/comp/gpuinflate.cu:292
=========     by thread (0,0,0) in block (2,0,0)
=========     Address 0x732 is misaligned
"""
# the compute-sanitizer manual's record format ("at unaligned_kernel():0x160 in memcheck_demo.cu:6", memcheck
# demo output) for a __shared__ access of a project's own kernel; a constructed record
OWN_SHARED = """========= Invalid __shared__ read of size 16 bytes
=========     at transpose_kernel():0x2a0 in transpose.cu:41
=========     by thread (3,0,0) in block (0,0,0)
=========     Address 0x24 is misaligned
"""
# corpus/holdout7 enzyme-julia-shared-write-wrong-alignment: generated code, offsets only
ENZYME = """========= Invalid __shared__ write of size 16 bytes
=========     at 0xb0 in julia_dvolumerhs__5923(CuDeviceArray<Float32,int=5,int=1>,Float32)
=========     by thread (2,1,1) in block (0,0,0)
=========     Address 0x274 is misaligned
"""


def test_misaligned_shared_at_a_source_line_is_the_kernels_even_in_a_library() -> None:
    for text in (CUDF_INFLATE, OWN_SHARED):
        category, rule, _ = diagnose(text)
        assert (category, rule) == ("kernel-logic", "sanitizer-misaligned-shared-at-source-line"), text
    report = classify_record(InputRecord(id="t", text=CUDF_INFLATE), MATCHER)
    assert report.diagnosis is not None and report.diagnosis.confidence >= 0.5


def test_misaligned_shared_with_offsets_only_is_not_decided_by_the_line_rule() -> None:
    assert diagnose(ENZYME)[1] != "sanitizer-misaligned-shared-at-source-line"


# --- a compile kdiag run made of the submission's own source decides whose code it is --------------------


def test_a_refusal_of_the_submissions_own_compile_answers_whatever_the_rules_record() -> None:
    from types import SimpleNamespace

    from diagnose.confidence import OWN_COMPILE_FLOOR, assess

    rule = SimpleNamespace(
        id="a-compiler-rule",
        category="runtime-assumption",
        failure_mode="arch-feature-unavailable",
        confidence=0.3,
        authored_confidence=0.85,
        requires=("compiler",),
        symbols=("compiler_unsupported_feature",),
    )
    own = {"run_target": "kernelbench", "run_target_arch": "sm_80", "compiler_unsupported_feature": "cluster"}
    value, why = assess(rule, own)
    assert value == OWN_COMPILE_FLOOR and why and "own source for sm_80" in why
    # a log (no run), a library's code, or a run with no named target keeps the rule's record
    for ctx in ({**own, "run_target": None}, {**own, "location_kind": "library"}, {**own, "run_target_arch": None}):
        assert assess(rule, ctx)[0] < 0.5, ctx
    # an environment rule is not decided by whose source it is
    env = SimpleNamespace(**{**vars(rule), "category": "environment"})
    assert assess(env, own)[0] < 0.5
