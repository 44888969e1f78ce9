"""Stated contracts (diagnose/data/catalogue/contract-statements.yaml, diagnose.contract_values): one family
of forms, many tools' wordings.

A library that refuses an input states its contract ("X only supports Y", "X is only supported for Y",
"Only Y are supported", "X must be one of [...]", "requires X to be a multiple of N"). The owner follows
from what the contract lists (dtypes, sizes, a layout, a device, an arch, a release) and from whose value
the subject is (the kernel's own block configuration, or the caller's input), not from one library's words.
Every line is a development-set case (its id cited) or a tool's own message (tool, version, file cited),
placeholders filled where it has them.
"""

from __future__ import annotations

import pytest

from diagnose.classify import classify_records
from diagnose.collectors.families import parse
from diagnose.inputs import InputRecord

LIBTORCH = "torch 2.13.0+cpu, strings of torch/lib/libtorch_cpu.so"
LIBTRITON = "triton 3.7.1, strings of triton/_C/libtriton.so"
RA, KL, ENV = "runtime-assumption", "kernel-logic", "environment"

# (line, category, failure mode or None for any mode of that category, provenance)
CASES = [
    # a kernel's own block configuration outside the values its check states: the code that chose it
    ("RuntimeError: BLOCK_SIZE_K // group_size must be one of [1, 2, 4, 8]", KL, "invalid-launch-config",
     "holdout8 case vllm-moe-wna16-block-size-k-ratio (vllm-project/vllm#36008)"),
    ("RuntimeError: Static cuda launcher only supports num_ctas == 1", KL, "invalid-launch-config",
     "torch 2.13.0, torch/_inductor/runtime/static_triton_launcher.py"),
    # sizes: a head dimension, a rank, a list of block sizes
    ("RuntimeError: FlashAttention only supports head dimension at most 256", RA, None,
     "Dao-AILab/flash-attention 2.x, csrc/flash_attn/flash_api.cpp (the head-size check, without 'forward')"),
    ("AssertionError: bmm only supports 3D tensors", RA, "shape-unsupported", LIBTORCH),
    ("ValueError: TDM gather only supports 2D tensors, got 3D", RA, "shape-unsupported",
     "triton 3.7.1, triton/experimental/gluon/language/amd/gfx1250/tdm.py"),
    ("RuntimeError: grid_sampler(): bicubic interpolation only supports 4D input", RA, "shape-unsupported",
     LIBTORCH),
    ("RuntimeError: Only tensors with 2 or more dimensions are supported", RA, "shape-unsupported",
     "torch 2.13.0, torch/nn/init.py"),
    # dtypes
    ("RuntimeError: FlashAttention only support fp16 and bf16 data type", RA, "dtype-unexpected",
     "holdout8 case autocompressors-rotary-fp32-into-flash-attn"),
    ("RuntimeError: cdist only supports floating-point dtypes, X1 got: Long", RA, "dtype-unexpected", LIBTORCH),
    ("RuntimeError: masked_fill only supports boolean masks, but got dtype Float", RA, "dtype-unexpected",
     LIBTORCH),
    ("TypeError: Only float32, float64, complex64, and complex128 are supported", RA, "dtype-unexpected",
     "cupy-cuda13x 14.2.0, cupy/linalg/_eigenvalue.py"),
    ("ValueError: acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, torch.float64}, "
     "got torch.int8. Pass acc_dtype=None to let the op pick automatically.", RA, "dtype-unexpected",
     "torch 2.13.0, torch/nn/modules/linear_cross_entropy_options.py"),
    ("ValueError: quant_type must be one of nf4 or fp4", RA, "dtype-unexpected",
     "bitsandbytes, bitsandbytes/functional.py (the 4-bit quantization data type check)"),
    # a layout: dense, a memory format, a multiple of N
    ("RuntimeError: cuDNN requires contiguous input tensor", RA, "noncontiguous-input",
     "holdout2 case depth-semantic-cudnn-noncontiguous"),
    ("RuntimeError: for now linear only supports contiguous nested tensor", RA, "noncontiguous-input", LIBTORCH),
    ("RuntimeError: Per-channel PReLU only supports channels_last right now.", RA, "noncontiguous-input",
     "torch 2.13.0, torch/backends/_nnapi/serializer.py"),
    # a device
    ("RuntimeError: _pdist_forward only supports CPU, XPU, CUDA and PrivateUse1 devices, got: mps", RA,
     "device-mismatch", LIBTORCH),
    ("ValueError: FlexAttention is only supported on CUDA, CPU, HPU, or MPS devices. Found input tensors on meta "
     "device.", RA, "device-mismatch", "torch 2.13.0, torch/nn/attention/flex_attention.py"),
    # an arch
    ("error: CUDA synchronization primitives are only supported for sm_70 and up.", RA, "arch-feature-unavailable",
     LIBTRITON),
]  # fmt: skip


def _report(text: str, exit_code: int = 1):  # type: ignore[no-untyped-def]
    (rep,) = classify_records([InputRecord(id="t", text=text + "\n", exit_code=exit_code)])
    return rep


@pytest.mark.parametrize(("line", "category", "mode", "source"), CASES, ids=[c[0][:48] for c in CASES])
def test_stated_contract_decides_owner(line: str, category: str, mode: str | None, source: str) -> None:
    rep = _report(line)
    assert rep.category == category, source
    if mode is not None:
        assert rep.failure_mode == mode, source


def test_facts_carry_subject_supported_values_and_refused_value() -> None:
    f = parse("ValueError: head_dim must be one of [64, 128, 256], got 96\n")
    assert f is not None
    assert (f.subject, f.supported, f.unsupported, f.unsupported_kind) == (
        "head_dim",
        "[64, 128, 256]",
        "96",
        "parameter-value",
    )
    f = parse("RuntimeError: cdist only supports floating-point dtypes, X1 got: Long\n")  # LIBTORCH
    assert f is not None and (f.subject, f.supported, f.unsupported, f.unsupported_kind) == (
        "cdist",
        "floating-point dtypes",
        "Long",
        "dtype",
    )
    f = parse("RuntimeError: BLOCK_SIZE_K // group_size must be one of [1, 2, 4, 8]\n")  # holdout8
    assert f is not None and (f.subject_kind, f.supported) == ("kernel-config", "[1, 2, 4, 8]")
    f = parse("RuntimeError: block_size must be one of [8, 16, 32], got 64\n")  # a caller's option, lower case
    assert f is not None and f.subject_kind is None and f.unsupported_kind == "parameter-value"


def test_what_quotes_the_values() -> None:
    what = _report("ValueError: head_dim must be one of [64, 128, 256], got 96").to_dict()["what"]
    assert "`head_dim` = 96" in what and "[64, 128, 256]" in what
    out = _report("RuntimeError: BLOCK_SIZE_K // group_size must be one of [1, 2, 4, 8]").to_dict()
    assert "`BLOCK_SIZE_K // group_size`: [1, 2, 4, 8]" in out["what"] and "[1, 2, 4, 8]" in out["fix"]


@pytest.mark.parametrize(
    ("line", "source"),
    [
        ("RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 9.2",
         "torch 2.13.0, torch/utils/_triton.py"),
        ("RuntimeError: load_args is version 3, but this version of PyTorch only supports version 2",
         "torch 2.13.0, torch/_dynamo/repro (load_args' version statement), values filled in"),
    ],
)  # fmt: skip
def test_a_release_statement_is_never_the_callers_input(line: str, source: str) -> None:
    assert _report(line).category != RA, source


@pytest.mark.parametrize(
    ("line", "source"),
    [
        # warnings and fallbacks: the program goes on
        ("UserWarning: Set timeout is now only supported for either nccl or gloo.",
         "torch 2.13.0, torch/distributed/distributed_c10d.py (warnings.warn)"),
        ("UserWarning: FlashAttention only supports fp16 and bf16; falling back to the math kernel",
         "constructed in the form of the flash-attn dtype statement, printed as a warning with a fallback"),
        ("INFO 05-01 10:00:00 selector.py:50] Cannot use FlashAttention backend: it only supports head sizes "
         "64, 128. Using XFormers backend.", "constructed in the form of vLLM 0.4's attention selector (INFO)"),
        # help text: no error's mark on the line
        ("Compile CUDA source to device-only .ltoir file. This feature is only supported with "
         "link-time-optimization (-dlto).", "corpus/healthy captured-help.yaml healthy-nvcc-help (nvcc --help)"),
        ("NOTE: stack scanning is only available on arm-linux.",
         "corpus/healthy captured-help.yaml healthy-valgrind-help (valgrind --help)"),
    ],
)  # fmt: skip
def test_warnings_fallbacks_and_help_text_stay_silent(line: str, source: str) -> None:
    f = parse(line + "\n")
    assert f is None or "contract-only-supports" not in f.families, source
    assert _report(line, exit_code=0).category == "no-failure", source


def test_an_option_list_is_stated_but_undecided_and_the_check_names_the_contract() -> None:
    # triton 3.7.1, triton/language/semantic.py: a choice among named precisions, not a size or a dtype
    rep = _report("ValueError: input_precision must be one of ('tf32', 'ieee'). Got tf32x3")
    assert rep.category == "unknown"
    assert rep.hint is not None and rep.hint.kind == "stated-contract"
    check = rep.to_dict()["next_check"]
    assert "states the contract" in check and "pip list" not in check
