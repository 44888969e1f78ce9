"""Numba's pipeline heads (diagnose/data/catalogue/numba.yaml): the older typing head "Invalid usage of ... with
parameters" (numba 0.3x-0.4x numba/typeinfer.py) is a typing failure like today's "Invalid use of", and a failed
lowering pass ("Failed in ... mode pipeline (step: native lowering)") abstains between the kernel's code and
Numba's, with the line that decides named."""

from __future__ import annotations

from tests.core.corpus_logs import classify_text, corpus_log, decided, verdict


def test_the_older_typing_head_is_a_typing_failure() -> None:
    # corpus/holdout10 numba-local-array-string-dtype-masked-as-signature-error (numba/numba#2205)
    text = corpus_log("holdout10", "numba-local-array-string-dtype-masked-as-signature-error")
    assert decided(text)[2] == "numba-typing-failed"


def test_the_0_4x_resolution_failure_head_is_a_typing_failure() -> None:
    # corpus/holdout19 h19b-numba-ixor-int64-float64 (numba/numba#4950): the head numba 0.4x's
    # _ResolutionFailures.format printed, "Invalid use of ... with argument(s) of type(s): (...)"
    text = corpus_log("holdout19", "h19b-numba-ixor-int64-float64")
    assert decided(text)[::2] == ("kernel-logic", "numba-typing-failed")


def test_the_same_head_in_an_object_mode_fallback_warning_is_no_failure() -> None:
    # numba's documentation (docs/source/user/troubleshoot.rst, the object-mode fallback of a CPU @jit): a
    # warning, the fallback taken
    text = (
        "example.py:7: NumbaWarning:\n"
        'Compilation is falling back to object mode WITH looplifting enabled because Function "f" failed type '
        "inference due to: Invalid use of Function(<class 'float'>) with argument(s) of type(s): (unicode_type)\n"
    )
    assert verdict(text)[0] == "no-failure"


def test_a_lowering_failure_abstains_with_the_deciding_line() -> None:
    # numba's head and the conversion line below it, as a public write-up quotes them
    text = (
        "numba.core.errors.TypingError: Failed in nopython mode pipeline (step: native lowering)\n"
        "No conversion from readonly array(float64, 1d, C) to array(float64, 1d, C)\n"
        "for '$10return_value.6', defined at None\n"
    )
    report = classify_text(text)
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None and d.findings
    assert [f"{f.category}/{f.failure_mode}" for f in d.findings[:2]] == [
        "kernel-logic/language-misuse",
        "environment/compiler-bug",
    ]
    assert "No conversion from" in (d.findings[0].caveats or "")


def test_the_typing_head_still_decides_over_the_lowering_candidates() -> None:
    text = (
        "numba.core.errors.TypingError: Failed in cuda mode pipeline (step: nopython frontend)\n"
        "No implementation of function Function(<built-in function setitem>) found for signature:\n"
    )
    assert decided(text)[2] == "numba-typing-failed"
