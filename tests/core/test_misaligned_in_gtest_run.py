"""A misaligned address in a googletest run (a C++ library's own test suite, which wrote its inputs): no caller
passed a misaligned input, so the owners are listed with the kernel's own layout first and the check says where
to look in it; elsewhere the rule about an input's misalignment still answers first."""

from __future__ import annotations

from diagnose.report import next_check
from tests.core.corpus_logs import classify_text, corpus_log


def test_gtest_run_lists_the_kernel_first() -> None:
    # kokkos/kokkos-kernels#598: SPGEMM's own unit test, its scratch layout misaligned a complex<double> array
    report = classify_text(corpus_log("holdout24", "h24b-kokkoskernels-spgemm-scratch-misaligned"))
    d = report.diagnosis
    assert report.status == "unknown" and d is not None
    assert d.findings[0].category == "kernel-logic"
    assert all(f.rule != "cuda-misaligned-address" for f in d.findings)
    assert "googletest run" in (next_check(report) or "")


def test_outside_a_gtest_run_the_input_rule_still_fires() -> None:
    # pytorch/pytorch#32893
    report = classify_text("RuntimeError: CUDA error: misaligned address\n")
    d = report.diagnosis
    assert d is not None and d.findings[0].rule == "cuda-misaligned-address"
    assert "googletest" not in (next_check(report) or "")
