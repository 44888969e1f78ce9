"""Families recognised in other versions' wordings and in logs that are only the message.

Each case is a real log of the labelled dev sets (corpus/holdout, holdout2, holdout3, holdout6: public reports,
the thread named in the case's ``source``); the family that must recognise it comes from the tool's
own message (its provenance is in diagnose/data/catalogue/)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.catalogue import default_catalogue
from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.failure import failure_signs
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
CAT = default_catalogue()
MATCHER = Matcher(default_rules())


def _cases() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name in ("holdout/issues.yaml", "holdout2/issues.yaml", "holdout3/issues.yaml", "holdout6/issues.yaml"):
        for c in yaml.safe_load((CORPUS / name).read_text()):
            out[c["id"]] = c
    return out


CASES = _cases()

# case id → (family that recognises its message, the rule that decides)
RECOGNISED = {
    "triton-fp8e4nv-needs-sm89": ("triton-fp8-type-unsupported-arch", "triton-fp8-type-unsupported-arch"),
    "triton-dot-8x8-below-minimum": ("triton-dot-constraints", "triton-dot-constraints"),
    "triton-block-ptr-store-shape-mismatch": ("triton-load-store-misuse", "triton-load-store-misuse"),
    "pointkan-old-triton-no-tl-cast": ("triton-api-missing", "triton-api-missing"),
    "flaggems-libentry-on-wrapper": (
        "triton-jit-attribute-on-plain-function",
        "triton-jit-attribute-on-plain-function",
    ),
    "pallas-tpu-splash-attention-on-gpu": ("pallas-tpu-grid-feature-on-gpu", "pallas-tpu-grid-feature-on-gpu"),
    "numba-046-libnvvm-not-found-regression": ("numba-cuda-library-not-found", "numba-cuda-library-not-found"),
    "mxnet-mshadow-softmax-grid-over-65535": (
        "mshadow-launch-parameter-too-large",
        "mshadow-launch-parameter-too-large",
    ),
    "openmm-find-interacting-blocks-shared-oob-read": (
        "sanitizer-invalid-shared-access",
        "concept-sanitizer-shared-oob-quoted",
    ),
    "arrayfire-reduce-first-kernel-racecheck": ("sanitizer-race-reported", "concept-sanitizer-race-quoted"),
    "tensorrt-engine-serialization-version-mismatch": (
        "tensorrt-engine-built-by-other-version",
        "tensorrt-engine-built-by-other-version",
    ),
    "involution-cupy-fp16-none-dtype": ("cupy-generated-source-python-none", "cupy-generated-source-python-none"),
    # LLVM's message wrapped by XLA's fatal-error handler: the required version on the next line
    "xla-sm107a-ptx-version-too-low": ("llvm-nvptx-ptx-version-below-target", "concept-component-too-old"),
    # nvcc's overload error quoted on one line inside a test report
    "pysdm-atomicadd-double-needs-cc60": ("nvcc-atomic-overload-needs-arch", "nvcc-atomic-overload-needs-arch"),
}


def _classify(text: str):
    return classify_record(InputRecord(id="t", text=text), MATCHER)


@pytest.mark.parametrize("case_id", sorted(RECOGNISED))
def test_real_log_is_recognised_by_its_family_and_decided(case_id: str) -> None:
    case = CASES[case_id]
    family, rule = RECOGNISED[case_id]
    assert family in [h.family.id for h in CAT.scan(case["log"])]
    report = _classify(case["log"])
    assert report.diagnosis is not None and report.diagnosis.rule == rule
    assert report.category == case["category"]


def test_a_full_sanitizer_report_is_left_to_the_sanitizer_rules() -> None:
    # memcheck's own frame around the same first line: the collector reads it (misaligned), so the
    # quoted-line rule stays silent and the sanitizer rules decide (here: they abstain)
    case = CASES["cudf-cub-reduce-sanitizer-false-positive"]
    report = _classify(case["log"])
    assert report.diagnosis is not None
    assert all(f.rule != "concept-sanitizer-shared-oob-quoted" for f in report.diagnosis.findings)


def test_a_failure_family_message_alone_is_a_failure() -> None:
    # an issue title that is only the library's status name: not `no-failure`
    log = CASES["pgl-cublas-execution-failed-broken-cuda-install"]["log"]
    assert failure_signs(collect(log)) == ("message family cublas-execution-failed",)
    assert _classify(log).status == "unknown"


def test_a_failure_family_name_on_an_info_line_is_not_a_failure() -> None:
    line = "2024-05-01 12:00:01 INFO retry policy covers CUBLAS_STATUS_EXECUTION_FAILED\n"
    assert failure_signs(collect(line)) == ()


def test_the_cudnn_contiguity_hint_alone_does_not_decide() -> None:
    # PyTorch appends the hint to every CUDNN_STATUS_NOT_SUPPORTED (ATen/cuda/Exceptions.h); the
    # hint is no evidence of a non-contiguous input: the cuDNN status family decides (at its measured
    # precision), never the contiguity rule, and the other owner stays among the candidates' caveats
    for cid in ("dpgn-cudnn-not-supported-toolkit-version", "greedy-infomax-permute-noncontiguous-cudnn"):
        report = _classify(CASES[cid]["log"])
        d = report.diagnosis
        assert d is not None and d.findings, cid
        assert d.findings[0].rule == "cudnn-configuration-not-supported", cid
        assert "py-noncontiguous" not in [f.rule for f in d.findings], cid
        assert "environment" in (d.findings[0].caveats or ""), cid
    assert _classify("RuntimeError: input must be a contiguous tensor\n").category == "runtime-assumption"
