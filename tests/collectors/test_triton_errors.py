"""tests for diagnose.collectors.triton_errors, on real Triton 3.7.1 output (scripts/capture-triton-samples)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from diagnose.collectors import triton_errors
from diagnose.facts import TritonFacts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "triton"
REAL_DEV = Path(__file__).resolve().parents[2] / "corpus" / "public" / "real-dev.yaml"


def load(name: str) -> str:
    return (FIXTURES / f"{name}.log").read_text()


# fixture → the facts fields it must produce (fields not named must be at their defaults)
EXPECTED: dict[str, dict[str, object]] = {
    "compile-arange-non-pow2": dict(
        error="CompilationError",
        src_line=2,
        src_col=11,
        message="arange's range must be a power of 2",
        inner_error="ValueError",
    ),
    "compile-pointer-plus-float": dict(
        error="CompilationError",
        src_line=3,
        src_col=16,
        message="invalid operands of type pointer<fp16> and triton.language.float32",
        inner_error="IncompatibleTypeErrorImpl",
    ),
    "compile-add-pointers": dict(
        error="CompilationError",
        src_line=2,
        src_col=13,
        message="cannot add pointers together",
        inner_error="TypeError",
    ),
    "compile-undefined-name": dict(
        error="CompilationError",
        src_line=2,
        src_col=20,
        message="undefined_name is not defined",
        inner_error="NameError",
    ),
    "compile-static-assert": dict(
        error="CompileTimeAssertionFailure", src_line=2, src_col=4, message="BLOCK must be <= 128"
    ),
    "compile-unsupported-construct": dict(
        error="UnsupportedLanguageConstruct",
        src_line=2,
        src_col=8,
        message="simultaneous multiple comparison is not supported",
    ),
    # the outer error marks the call site only; the helper's block (its line 2) carries the message
    "compile-nested-jit": dict(
        error="CompilationError",
        src_line=2,
        src_col=23,
        message="arange's range must be a power of 2",
        inner_error="ValueError",
    ),
    "compile-dot-k-too-small": dict(
        error="CompilationError",
        src_line=4,
        src_col=8,
        message="Input shapes should have M >= 1, N >= 1 and K >= 16",
        inner_error="AssertionError",
    ),
    "mlir-verifier-addptr": dict(
        error="MLIRError",
        message="'tt.addptr' op operand #1 must be integer or ranked tensor of integer values, but got '!tt.ptr<f32>'",
    ),
    "out-of-resources-smem": dict(
        error="OutOfResources",
        resource="shared memory",
        required=524288.0,
        limit=232448.0,
        message="out of resource: shared memory, Required: 524288, Hardware limit: 232448. "
        "Reducing block sizes or `num_stages` may help.",
    ),
    "interp-arange-non-pow2": dict(
        error="InterpreterError", inner_error="ValueError", message="arange's range must be a power of 2"
    ),
    "interp-static-assert": dict(
        error="InterpreterError", inner_error="AssertionError", message="BLOCK must be <= 128"
    ),
    "interp-pointer-plus-float": dict(
        error="InterpreterError",
        inner_error="IncompatibleTypeErrorImpl",
        message="invalid operands of type pointer<fp16> and triton.language.float32",
    ),
    "no-active-driver": dict(no_active_driver=True),
    # a feature the target arch lacks, raised as a plain ValueError by Triton's NVIDIA backend
    "num-ctas-on-sm80": dict(
        message="num_ctas > 1 requires NVIDIA SM90+ (Hopper). Current target is sm_80. This configuration will fail. "
        "Please set num_ctas=1 or target an SM90+ GPU.",
        inner_error="ValueError",
    ),
    "fp8-e4m3-on-sm80": dict(
        error="CompilationError",
        src_line=1,
        src_col=0,
        message="type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')",
        inner_error="ValueError",
    ),
    "autotune-failing-configs": dict(
        autotune_failures=1, autotune_best_config="BLOCK: 64, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None"
    ),
    "autotune-prune-empty": dict(
        error="AutotunerError",
        message="No valid autotuner configs after pruning. `early_config_prune` should return at least one config.",
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture(name: str) -> None:
    facts = triton_errors.parse(load(name))
    assert facts is not None
    blank = TritonFacts()
    for field in (
        "error",
        "message",
        "src_line",
        "src_col",
        "resource",
        "required",
        "limit",
        "inner_error",
        "no_active_driver",
        "autotune_failures",
        "autotune_best_config",
    ):
        assert getattr(facts, field) == EXPECTED[name].get(field, getattr(blank, field)), field
    assert facts.lines, "a report must be able to cite the lines"


def test_lines_point_at_the_error() -> None:
    text = load("compile-static-assert")
    facts = triton_errors.parse(text)
    assert facts is not None
    cited = [text.splitlines()[n - 1] for n in facts.lines]
    assert cited[0].startswith("triton.compiler.errors.CompileTimeAssertionFailure: at 2:4:")
    assert cited[-1] == "BLOCK must be <= 128"


def test_ptxas_error_keeps_ptxas_stderr() -> None:
    facts = triton_errors.parse(load("ptxas-inline-asm-error"))
    assert facts is not None and facts.error == "PTXASError"
    assert facts.message is not None
    head, *stderr = facts.message.splitlines()
    assert head == "Internal Triton PTX codegen error"
    assert stderr[-1] == "ptxas fatal   : Ptx assembly aborted due to errors"
    assert any("Not a name of any known instruction: 'bogus'" in line for line in stderr)


def test_ptxas_unknown_arch() -> None:
    facts = triton_errors.parse(load("ptxas-unknown-arch"))
    assert facts is not None and facts.error == "PTXASError"
    assert facts.message == (
        "Internal Triton PTX codegen error\nptxas-blackwell fatal   : Value 'sm_130a' is not defined for option 'gpu-name'"
    )


def test_healthy_compile_says_nothing() -> None:
    # ptxas -v lines are the compiler collector's
    assert triton_errors.parse(load("ptxas-log-dump")) is None


def _real_dev() -> dict[str, str]:
    return {c["id"]: c["log"] for c in yaml.safe_load(REAL_DEV.read_text())}


REAL_DEV_EXPECTED: dict[str, dict[str, object]] = {
    "triton-ptxas-sm121a-dgx-spark": dict(error="PTXASError"),  # first character of the log lost in the report
    "dest3d-chunk-scan-smem": dict(error="OutOfResources", resource="shared memory", required=589824.0, limit=101376.0),
    "freetoken-rtx2080ti-smem": dict(error="OutOfResources", required=98304.0, limit=65536.0),
    "triton-puzzles-arange-200": dict(
        error=None, inner_error="ValueError", message="arange's range must be a power of 2"
    ),
    "triton-true-division-pid-pointer": dict(
        error=None, message="invalid operands of type pointer<fp16> and triton.language.fp32"
    ),
    "triton-tma-illegal-instruction-unaligned": dict(
        error="InterpreterError", inner_error="AssertionError", message="stride must be 16-byte aligned"
    ),
    "triton-add-two-pointers": dict(error="MLIRError"),
}


@pytest.mark.parametrize("case_id", sorted(REAL_DEV_EXPECTED))
def test_real_dev_cases(case_id: str) -> None:
    cases = _real_dev()
    facts = triton_errors.parse(cases[case_id])
    assert facts is not None
    for field, value in REAL_DEV_EXPECTED[case_id].items():
        assert getattr(facts, field) == value, field


def test_silent_on_other_failures() -> None:
    cases = _real_dev()
    for case_id in (
        "onnxruntime-resize-trilinear-oob-write",
        "vina-cuda-grid-params-ima",
        "lightllm-triton20-sm89",
        "faceswap-nvml-lib-not-found",
        "hpxcl-nvrtc-builtin-header-rebuild",
    ):
        assert triton_errors.parse(cases[case_id]) is None, case_id


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "\x00\xff" * 1000,
        "CompilationError: at 1:2:",
        "CompilationError: at 9:9:\n" + "x\n" * 5,
        "InterpreterError: ValueError('unterminated)",
        "out of resource: shared memory, Required: x",
        "PTXASError: PTXAS error: \n`ptxas` stderr:\n",
        "Autotuning failed with",
        "x" * 200_000 + " PTXAS",
    ],
)
def test_never_raises_on_junk(junk: str) -> None:
    result = triton_errors.parse(junk)
    assert result is None or isinstance(result, TritonFacts)


def test_every_fixture_has_a_sidecar() -> None:
    for log in FIXTURES.glob("*.log"):
        side = yaml.safe_load(log.with_suffix(".source.yaml").read_text())
        captured = side["captured"]
        assert captured["triton"] == "3.7.1" and "no GPU" in captured["machine"] and captured["command"], log.name


# Speed is measured by bench/bench_collectors.py; these check the results on large and noisy input
# (a regex that went quadratic would make them hang instead of passing).


def test_a_long_log_without_triton_says_nothing() -> None:
    log = (
        'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    ) * 10_000
    assert log.count("\n") == 30_000
    assert triton_errors.parse(log) is None


def test_noise_before_a_triton_log_changes_only_the_line_numbers() -> None:
    noise = "".join(f"step {i} loss=0.{i:04d} lr=1e-4 triton-free\n" for i in range(2_000))
    for name in EXPECTED:
        clean = triton_errors.parse(load(name))
        assert clean is not None, name
        noisy = triton_errors.parse(noise + load(name))
        assert noisy == dataclasses.replace(clean, lines=tuple(n + 2_000 for n in clean.lines)), name


def test_one_error_after_thirty_thousand_lines() -> None:
    noise = "".join(f"step {i} loss=0.{i:04d} lr=1e-4 triton-free\n" for i in range(30_000))
    facts = triton_errors.parse(noise + load("compile-arange-non-pow2"))
    assert facts is not None and facts.error == "CompilationError" and facts.inner_error == "ValueError"
    assert facts.message == "arange's range must be a power of 2" and min(facts.lines) > 30_000


def test_arch_feature_message_pasted_alone() -> None:
    # sgl-project/sglang#5871: only the message's line was pasted, with the quote that closed the repr
    line = "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\""
    facts = triton_errors.parse(line)
    assert facts is not None and facts.error is None
    assert facts.message == line[:-1]


@pytest.mark.parametrize(
    "line",
    [
        # sgl-project/sglang#28019 (Triton fused MoE on a GB10): the class name, then the str() without its prefix
        "triton.runtime.errors.OutOfResources: shared memory, Required: 147456, Hardware limit: 101376",
        # the same shorthand in a public write-up of an SGLang fused-MoE failure on an RTX 4090
        "OutOfResources: shared memory, Required: 147456, Hardware limit: 101376",
    ],
)
def test_out_of_resources_quoted_by_its_class_name(line: str) -> None:
    facts = triton_errors.parse(line)
    assert facts is not None and facts.error == "OutOfResources"
    assert (facts.resource, facts.required, facts.limit) == ("shared memory", 147456.0, 101376.0)


def test_out_of_resources_full_wording_is_read_once() -> None:
    facts = triton_errors.parse(
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536."
    )
    assert facts is not None and (facts.resource, facts.required, facts.limit) == ("shared memory", 98304.0, 65536.0)


def test_numpy_removal_inside_the_interpreter() -> None:
    # triton-lang/triton#9171 (corpus/holdout26): numpy 2.4 expired the ndim>0-to-scalar conversion
    text = "triton.runtime.errors.InterpreterError: TypeError('only 0-dimensional arrays can be converted to Python scalars')\n"
    facts = triton_errors.parse(text)
    assert facts is not None
    assert (facts.error, facts.inner_error, facts.numpy_removal) == ("InterpreterError", "TypeError", "2.4")
    kernel = triton_errors.parse(
        "triton.runtime.errors.InterpreterError: IncompatibleTypeErrorImpl('invalid operands of type pointer<fp16> and "
        "triton.language.float32')\n"
    )
    assert kernel is not None and kernel.numpy_removal is None
