"""What the round-95 KernelBench and GPU MODE records taught: a KernelBench result nested inside another tool's record
(an evolutionary search's program record keeps its evaluator's verdict under ``metrics``), KernelBench's
``correctness: False`` as a failed check, and Triton's launch keyword the kernel does not declare.

The records are in corpus/kernelbench-results/results/ (``DeepLink-org-dlblas-*.json``, labelled there); the tests
here use their shapes with other values, and the wordings of the Triton message from its own source
(triton/runtime/jit.py, JITFunction.run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnose.classify import classify_records
from diagnose.inputs import read_inputs
from tests.core.corpus_logs import classify_text, verdict


def _program(metrics: dict) -> dict:
    return {"id": "p-1", "code": "import triton\n", "language": "python", "parent_id": "p-0", "metrics": metrics}


def _classify(tmp_path: Path, record: dict):
    path = tmp_path / "program.json"
    path.write_text(json.dumps(record))
    (report,) = classify_records(read_inputs([str(path)]))
    return report


def test_a_kernelbench_result_nested_in_a_program_record_is_read(tmp_path: Path) -> None:
    result = {
        "compiled": True,
        "correctness": False,
        "metadata": {
            "hardware": "NVIDIA A100",
            "runtime_error_name": "triton.compiler.errors.CompilationError",
            "runtime_error": "at 3:10:\n    x = tl.load(p + offs)\n          ^\nNameError('offs is not defined')",
        },
    }
    record = _program({"compiled": True, "correctness": False, "stage": "wrong_answer",
                       "verify_payload": {"id": "level1_19_ReLU", "result": result}})  # fmt: skip
    report = _classify(tmp_path, record)
    assert report.status == "diagnosed" and report.category == "kernel-logic", report


@pytest.mark.parametrize("wrap", ["alone", "result"])
def test_a_kernelbench_result_alone_or_one_level_down_keeps_its_error(tmp_path: Path, wrap: str) -> None:
    # the same reading as deeper down: the record itself, or under a harness's "result" key, is not reduced to its
    # two flags (the error in its metadata is what decides)
    result = {
        "compiled": True,
        "correctness": False,
        "metadata": {
            "runtime_error_name": "triton.compiler.errors.CompilationError",
            "runtime_error": "at 3:10:\n    x = tl.load(p + offs)\n          ^\nNameError('offs is not defined')",
        },
    }
    record = result if wrap == "alone" else {"id": "r-1", "result": result}
    report = _classify(tmp_path, record)
    assert report.evidence is not None and "CompilationError" in report.evidence.log.text, report
    assert report.status == "diagnosed" and report.category == "kernel-logic", report


def test_what_a_record_keeps_of_its_parent_program_is_not_its_own(tmp_path: Path) -> None:
    own = {"compiled": True, "correctness": False, "metadata": {"correctness_issue": "Output mismatch",
                                                                "max_difference": ["0.5"]}}  # fmt: skip
    parent = {"compiled": False, "correctness": False, "metadata": {
        "compilation_error_name": "builtins.SyntaxError", "compilation_error": "invalid syntax (k.py, line 3)"}}  # fmt: skip
    record = _program({"compiled": True, "correctness": False, "verify_payload": {"result": own}})
    record["metadata"] = {"parent_metrics": {"verify_payload": {"result": parent}}}
    report = _classify(tmp_path, record)
    assert report.diagnosis is not None and report.diagnosis.failure_mode == "wrong-result", report
    assert "SyntaxError" not in (report.evidence.log.text if report.evidence else "")


def test_a_program_record_whose_flags_say_it_passed_passes(tmp_path: Path) -> None:
    report = _classify(tmp_path, _program({"compiled": True, "correctness": True, "stage": "success", "score": 20}))
    assert report.status == "pass", report


@pytest.mark.parametrize(
    "sample",
    [
        {"sample_id": 0, "compiled": False, "correctness": False, "metadata": {}},
        {"sample_id": 0, "compiled": True, "correctness": False, "metadata": {"hardware": "NVIDIA L40S"}},
    ],
)
def test_a_kernelbench_failure_with_no_error_text_abstains_instead_of_no_failure(tmp_path: Path, sample) -> None:
    path = tmp_path / "eval_results.json"
    path.write_text(json.dumps({"7": [sample]}))
    (report,) = classify_records(read_inputs([str(path)]))
    assert report.status == "unknown", report


@pytest.mark.parametrize(
    ("text", "status", "category", "rule"),
    [
        # the launch of a kernel whose autotune configs set a block size its signature lacks
        # (corpus/kernelbench-results/results DeepLink-org-dlblas-l2_69-4db61cc6.json, another name)
        (
            '  File "/usr/lib/python3/site-packages/triton/runtime/jit.py", line 594, in run\n'
            '    raise KeyError("Keyword argument %s was specified but unrecognised" % k)\n'
            "KeyError: 'Keyword argument BLOCK_N was specified but unrecognised'\n",
            "diagnosed",
            "kernel-logic",
            "triton-launch-keyword-unrecognised",
        ),
        # a launch option another release or backend has (jit.py checks options against the backend's own)
        (
            "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'\n",
            "unknown",
            "unknown",
            "triton-launch-option-unrecognised",
        ),
        # the raise line alone names no keyword
        (
            '    raise KeyError("Keyword argument %s was specified but unrecognised" % k)\n',
            None,
            None,
            None,
        ),
    ],
)
def test_triton_launch_keywords_it_does_not_know(text: str, status, category, rule) -> None:
    got_status, got_category, got_rule = verdict(text)
    if rule is None:
        assert got_rule not in ("triton-launch-keyword-unrecognised", "triton-launch-option-unrecognised")
        return
    assert got_status == status, (got_status, got_rule)
    if status == "diagnosed":
        assert (got_category, got_rule) == (category, rule)
    else:
        report = classify_text(text)
        assert report.diagnosis is not None
        assert any(f.rule.startswith(rule) for f in report.diagnosis.findings), report.diagnosis.findings
