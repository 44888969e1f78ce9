"""Messages that state their own cause are read, whichever tool printed them and however they are wrapped.

Each family is tested on a real log of a development set (corpus/holdout6, holdout7: public reports, the thread
named in the case's ``source``) and on at least one other wording of the same family, taken from a tool's own
message text (its provenance is in diagnose/data/catalogue/) or produced here by running CPython."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from corpus_logs import classify_text, corpus_log, decided

from diagnose.catalogue import default_catalogue
from diagnose.collectors.families import facts_from
from diagnose.report import next_check

CAT = default_catalogue()


_case = corpus_log
_classify = classify_text
_decided = decided


# --- 1. required vs present compute capability, in prose -----------------------------------------

CAPABILITY = [
    # holdout7 nemo-rl-vllm-bf16-default-on-v100 (NVIDIA-NeMo/RL#259): vLLM's check, wrapped over three lines
    (_case("holdout7", "nemo-rl-vllm-bf16-default-on-v100"), 8.0, 7.0),
    # holdout6 vllm-bf16-on-v100-compute-capability-70: the same check on one line
    (_case("holdout6", "vllm-bf16-on-v100-compute-capability-70"), 8.0, 7.0),
    # XLA's FP8 convolution check (jax-cuda12-pjrt 0.10.2, strings of xla_cuda_plugin.so), values filled in
    (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: FP8 convolutions are only supported on CUDA GPUs with "
        "compute capability at least 8.9, but got FP8 convolution on GPU with compute capability 8.6: %cudnn-conv.1\n",
        8.9,
        8.6,
    ),
    # the same XLA message wrapped by a terminal between "compute" and "capability"
    (
        "INTERNAL: FP8 convolutions are only supported on CUDA GPUs with compute capability at least 9.0, but got\n"
        "FP8 convolution on GPU with compute\ncapability 8.9: %cudnn-conv\n",
        9.0,
        8.9,
    ),
    # torch's Inductor check (torch 2.13.0 torch/_inductor/exc.py, GPUTooOldForTriton), wrapped before "capability"
    (
        "torch._inductor.exc.GPUTooOldForTriton: Found Tesla P100-PCIE-16GB which is too old to be supported by the "
        "triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, "
        "but your device is of CUDA\ncapability 6.0\n",
        7.0,
        6.0,
    ),
    # vLLM's quantization check (vllm/config.py, get_min_capability), integer capabilities
    (
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 89. "
        "Current capability: 86.\n",
        8.9,
        8.6,
    ),
    # vLLM compressed-tensors' scheme check (_check_scheme_supported)
    (
        "RuntimeError: Quantization scheme is not supported for the current GPU. Min capability: 80. "
        "Current capability: 75.\n",
        8.0,
        7.5,
    ),
]


@pytest.mark.parametrize(("text", "need", "have"), CAPABILITY)
def test_capability_in_prose_is_read_as_required_and_present(text: str, need: float, have: float) -> None:
    facts = facts_from(CAT, text)
    assert facts is not None and facts.need_cc == need and facts.have_cc == have and facts.cc_too_low
    assert _decided(text)[:2] == ("runtime-assumption", "arch-feature-unavailable")


def test_a_capability_check_that_the_device_meets_decides_nothing() -> None:
    # the same compressed-tensors wording with the device above the minimum: no arch-feature answer
    text = "RuntimeError: Quantization scheme is not supported for the current GPU. Min capability: 80. Current capability: 90.\n"
    facts = facts_from(CAT, text)
    assert facts is not None and not facts.cc_too_low
    assert _decided(text)[1] != "arch-feature-unavailable"


def test_the_bf16_fix_names_float16() -> None:
    report = _classify(_case("holdout7", "nemo-rl-vllm-bf16-default-on-v100"))
    assert report.diagnosis is not None and report.diagnosis.best is not None
    assert "float16" in report.diagnosis.best.fix


# --- 2. a signature or name mismatch across an installed-package boundary ------------------------


def test_jax_triton_calling_triton_with_an_unknown_keyword_is_version_skew() -> None:
    # holdout7 jax-triton-nightly-ast-to-ttir-target-kwarg (jax-ml/jax-triton#238)
    text = _case("holdout7", "jax-triton-nightly-ast-to-ttir-target-kwarg")
    assert _decided(text) == ("environment", "version-skew", "concept-api-mismatch-across-packages")


def _two_packages(tmp_path: Path, callee: str, caller: str) -> str:
    """A real CPython traceback: a script calls package ``outerpkg``, which calls ``callerpkg``, whose code
    calls ``calleepkg`` in a way the callee does not accept (both installed under a site-packages folder)."""
    site = tmp_path / "lib" / "python3" / "site-packages"
    for name, body in (
        ("calleepkg", callee),
        ("callerpkg", "import calleepkg\n\n\ndef lower(x):\n" + caller),
        ("outerpkg", "import callerpkg\n\n\ndef run(x):\n    return callerpkg.lower(x)\n"),
    ):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text(body)
    script = tmp_path / "main.py"
    script.write_text("import outerpkg\n\nouterpkg.run(1)\n")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env={"PYTHONPATH": str(site)}, timeout=60
    )
    assert done.returncode == 1
    return done.stderr


@pytest.mark.parametrize(
    ("callee", "caller", "exc"),
    [
        ("def compile(src):\n    return src\n", "    return calleepkg.compile(x, target='cuda')\n", "TypeError"),
        ("def compile(src, options):\n    return src\n", "    return calleepkg.compile(x)\n", "TypeError"),
        ("VERSION = 1\n", "    return calleepkg.constexpr_function(x)\n", "AttributeError"),
    ],
)
def test_other_signature_mismatches_across_two_packages_are_version_skew(
    tmp_path: Path, callee: str, caller: str, exc: str
) -> None:
    text = _two_packages(tmp_path, callee, caller)
    assert exc in text
    assert _decided(text) == ("environment", "version-skew", "concept-api-mismatch-across-packages")


def test_a_keyword_from_the_users_own_call_through_one_package_is_not_decided() -> None:
    # the rule's own no_match example: torch forwards the user's keyword; only one installed package
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 12, in <module>\n'
        "    out = model(x, scale=2.0)\n"
        '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1541, in _call_impl\n'
        "    return forward_call(*args, **kwargs)\n"
        "TypeError: Net.forward() got an unexpected keyword argument 'scale'\n"
    )
    report = _classify(text)
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.rule != "concept-api-mismatch-across-packages"


# --- 3. overflow words on sizes, strides and indices ---------------------------------------------

INT32 = [
    # holdout7 xformers-bias-stride-overflow-large-bias (facebookresearch/xformers#788)
    _case("holdout7", "xformers-bias-stride-overflow-large-bias"),
    # the same ASSIGN_CHECK_OVERFLOW macro on the query's batch stride (xFormers / PyTorch gemm_kernel_utils.h)
    "RuntimeError: query.stride(0) overflows\n",
    # JAX without 64-bit types (jax/_src/dtypes.py): a Python int past the int32 range
    "OverflowError: Python int 4294967296 too large to convert to int32\n",
]


@pytest.mark.parametrize("text", INT32)
def test_overflow_words_on_sizes_are_int32_index_overflow(text: str) -> None:
    assert _decided(text)[:2] == ("runtime-assumption", "int32-index-overflow")


def test_a_scalar_that_does_not_fit_int32_lists_candidates_and_a_check() -> None:
    # c10/util/TypeCast.h checked_convert (strings of torch 2.13.0 libc10.so): a value, not always a size
    report = _classify("RuntimeError: value cannot be converted to type int without overflow\n")
    assert report.status == "unknown" and report.diagnosis is not None
    got = {(f.category, f.failure_mode) for f in report.diagnosis.findings}
    assert ("runtime-assumption", "int32-index-overflow") in got
    assert "2^31" in (next_check(report) or "")


def test_an_overflow_word_not_on_a_size_stays_out() -> None:
    # DeepSpeed's fp16 loss-scale message (deepspeed/runtime/fp16/fused_optimizer.py), printed by healthy
    # training runs: "overflow" on a gradient value, not on a stride, size or index
    text = "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
    facts = facts_from(CAT, text)
    assert facts is None or facts.resource != "int32-index"
    assert _classify(text).category != "runtime-assumption"


# --- 4. two copies of a native library in one process ---------------------------------------------

DUPLICATES = [
    # holdout7 pallas-llvm-dialect-registered-twice (jax-ml/jax#19825): MLIR's check
    _case("holdout7", "pallas-llvm-dialect-registered-twice"),
    # LLVM CommandLine.cpp (strings of triton 3.7.1 libtriton.so), two lines as printed
    "python: CommandLine Error: Option 'enable-fs-discriminator' registered more than once!\n"
    "LLVM ERROR: inconsistency in registered CommandLine options\n",
    # pybind11 generic_type::initialize (strings of libtriton.so) raised at import
    'ImportError: generic_type: type "ir_context" is already registered!\n',
    # protobuf descriptor_database.cc (strings of jaxlib 0.10.2 libjax_common.so)
    "File already exists in database: tensorflow/core/framework/tensor.proto\n",
]


@pytest.mark.parametrize("text", DUPLICATES)
def test_a_native_library_loaded_twice_is_version_skew(text: str) -> None:
    assert _decided(text) == ("environment", "version-skew", "native-library-loaded-twice")


# --- 5. a CUDA math library's status raised through jaxlib ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # holdout7 jax-061-cusolver-internal-error-cublas-pin (jax-ml/jax#29065)
        _case("holdout7", "jax-061-cusolver-internal-error-cublas-pin"),
        # jaxlib's words for CUBLAS_STATUS_INTERNAL_ERROR (strings of jax_cuda12_plugin/_solver.so)
        "jax.errors.JaxRuntimeError: cuBlas internal error\n",
    ],
)
def test_a_library_status_through_jaxlib_gives_candidates_and_the_pip_check(text: str) -> None:
    report = _classify(text)
    assert report.status == "unknown" and report.diagnosis is not None
    got = [(f.category, f.failure_mode) for f in report.diagnosis.findings]
    assert got[0] == ("environment", "version-skew")
    assert ("runtime-assumption", "oom-problem-size") in got
    check = next_check(report) or ""
    assert "pip list | grep -i nvidia" in check and "jax.print_environment_info()" in check
