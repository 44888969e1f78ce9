"""Triton's interpreter refuses operations that exist only in compiled GPU code (triton 3.7.1
runtime/interpreter.py: "inline_asm not supported in interpreter mode", "extern_elementwise ..."): the kernel
assumed a GPU backend, and the interpreted run broke the assumption (runtime-assumption), not a source error.
The log is a real capture (tests/fixtures/triton/interp-inline-asm-unsupported.log, scripts/capture-triton-samples)."""

from __future__ import annotations

from pathlib import Path

from tests.core.corpus_logs import decided

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "triton" / "interp-inline-asm-unsupported.log"


def test_inline_asm_under_the_interpreter_is_the_runs_assumption() -> None:
    assert decided(FIXTURE.read_text()) == (
        "runtime-assumption",
        "backend-feature-unavailable",
        "triton-interpreter-feature-unsupported",
    )


def test_a_source_error_under_the_interpreter_is_still_the_kernels() -> None:
    # the interpreter's wrapper of an ordinary type error keeps its own rule (tests/fixtures/triton, captured)
    text = (Path(__file__).resolve().parents[1] / "fixtures" / "triton" / "interp-pointer-plus-float.log").read_text()
    assert decided(text)[2] != "triton-interpreter-feature-unsupported"
