"""GPU MODE result output (the key: value lines a problem's eval.py writes, as popcorn-cli shows them)."""

from __future__ import annotations

from pathlib import Path

from diagnose.classify import classify_records
from diagnose.inputs import popcorn_passed, read_inputs

RESULTS = Path(__file__).resolve().parent.parent.parent / "corpus" / "gpumode" / "results"


def test_a_passing_result_is_a_pass_and_a_failing_one_is_the_kernels() -> None:
    reports = {r.id: r for r in classify_records(read_inputs([str(RESULTS)]))}
    for problem in ("vectoradd", "trimul"):  # trimul's: scripts/make-popcorn-results, the problem's own checker
        assert reports[f"{problem}-test-pass.txt"].status == "pass"
        fail = reports[f"{problem}-test-fail.txt"]
        assert fail.diagnosis is not None
        assert (fail.diagnosis.category, fail.diagnosis.failure_mode) == ("kernel-logic", "wrong-result")


def test_only_a_whole_popcorn_result_with_every_test_passing_is_a_pass() -> None:
    good = (RESULTS / "vectoradd-test-pass.txt").read_text()
    assert popcorn_passed(good)
    assert not popcorn_passed(good.replace("test.1.status: pass", "test.1.status: fail"))
    assert not popcorn_passed("check: pass\n")  # no test count: not a popcorn result
    # a log that merely contains the line among other output is not a result file
    assert not popcorn_passed("Traceback (most recent call last):\n  boom\nRuntimeError: x\n" * 3 + good)


#: real popcorn-cli / GPU MODE cluster-bot output kept verbatim (corpus/gpumode/README.md says where from), labelled
#: before kdiag read it
REAL = {
    "real-nvfp4-gemm-popcorn-fail.txt": ("kernel-logic", "numerical-instability"),  # every printed element is +-inf
    "real-nvfp4-gemv-popcorn-build-fail.txt": ("kernel-logic", "compile-source-error"),  # nvcc, in the submission
}


def test_real_popcorn_output_is_read_for_what_it_says() -> None:
    reports = {r.id: r for r in classify_records(read_inputs([str(RESULTS / name) for name in REAL]))}
    for name, (category, mode) in REAL.items():
        d = reports[name].diagnosis
        assert d is not None and (d.category, d.failure_mode) == (category, mode), (name, d)


def test_a_popcorn_show_whose_leaderboard_run_failed_without_a_message_is_not_decided() -> None:
    # popcorn-cli's `show` of a real qr_v2 submission (corpus/gpumode/README.md): its test and benchmark runs passed,
    # its leaderboard runs "failed" fifteen minutes in with nothing else recorded; the code that follows quotes CUDA
    # and TORCH_CHECK texts that are not failures.  Labelled before kdiag read it: a failure whose owner the record
    # cannot tell (unknown), never a pass and never blamed on the kernel
    name = "real-qr-v2-popcorn-show-leaderboard-failed.txt"
    (report,) = classify_records(read_inputs([str(RESULTS / name)]))
    assert report.status != "pass" and report.diagnosis is not None and report.diagnosis.category == "unknown", report
