"""The CUDA front end's type-conversion error quoted alone (diagnose/data/catalogue/nvcc-type-conversion-quoted.yaml):
without the file it names, kdiag abstains between the kernel's source error and a code generator's defect.

The logs are a real nvcc 13.0.88 run (tests/fixtures/compiler/nvcc-vector-type-conversion.source.yaml) and a
development set case (corpus/holdout23 h23b-tvm-int64-ramp-codegen, apache/tvm#13379)."""

from __future__ import annotations

from pathlib import Path

from corpus_logs import classify_text, corpus_log, verdict

FAMILY = "nvcc-type-conversion-quoted"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "compiler" / "nvcc-vector-type-conversion.log"


def test_the_message_alone_abstains_with_both_owners() -> None:
    report = classify_text(corpus_log("holdout23", "h23b-tvm-int64-ramp-codegen"))
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None
    rules = [f.rule for f in d.findings]
    assert rules[0] == f"{FAMILY}-as-environment" and f"{FAMILY}-as-kernel-logic" in rules


def test_the_full_compiler_log_is_still_the_kernels_source_error() -> None:
    assert verdict(FIXTURE.read_text()) == ("diagnosed", "kernel-logic", "nvcc-source-error")


def test_the_bare_line_of_the_real_run_is_the_same_family() -> None:
    line = FIXTURE.read_text().splitlines()[0].split(": error: ", 1)[1]
    report = classify_text(line)
    assert report.status == "unknown"
    assert report.diagnosis is not None and report.diagnosis.findings[0].rule.startswith(FAMILY)
