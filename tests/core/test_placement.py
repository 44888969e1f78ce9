"""Fixes that fit where the failing code lives, and confidences the evidence moves (real fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from diagnose import confidence as C
from diagnose.classify import classify_records
from diagnose.collectors import collect
from diagnose.explain import explain_finding
from diagnose.inputs import read_inputs
from diagnose.placement import located_caveats
from diagnose.rules import Rule, load_rules

ROOT = Path(__file__).resolve().parent.parent.parent
SAN = ROOT / "tests" / "fixtures" / "sanitizer"


def _rule(rid: str) -> Rule:
    return next(r for r in load_rules(None) if r.id == rid)


def _diagnose(path: Path) -> Any:
    (rep,) = list(classify_records(read_inputs([str(path)])))
    return rep


def _corpus_log(suite: str, case_id: str) -> str:
    for item in yaml.safe_load((ROOT / "corpus" / suite).read_text(encoding="utf-8")):
        if isinstance(item, dict) and item.get("id") == case_id:
            return str(item["log"])
    raise AssertionError(case_id)


def test_a_library_kernel_fix_names_the_library_and_the_caller() -> None:
    # onnxruntime#17798: the out-of-bounds write is in onnxruntime's own resize kernel
    rep = _diagnose(SAN / "case-onnxruntime-resize-trilinear-oob-write.txt")
    best = rep.diagnosis.best
    assert best is not None and best.category == "kernel-logic"
    assert best.fix.startswith("The failing kernel is inside onnxruntime")
    assert "your code is the caller" in best.fix and "report it upstream" in best.fix
    assert ("location_library", "onnxruntime") in best.facts


def test_the_users_own_kernel_keeps_the_rules_fix() -> None:
    rep = _diagnose(SAN / "case-gkeyll-reduction-oob-read.txt")
    best = rep.diagnosis.best
    assert best is not None and best.category == "kernel-logic"
    assert "The failing kernel is inside" not in best.fix
    assert not any(k == "location_kind" for k, _ in best.facts)


def test_a_pointer_to_file_cu_line_renders_only_with_a_source_line() -> None:
    rule = _rule("sanitizer-oob-global-read")
    assert any("file.cu:LINE" in text for _, text in rule.explain.fixes)
    # offsets only (gkeyll): no file.cu:LINE, and the fix says the log has none
    ev = collect((SAN / "case-gkeyll-reduction-oob-read.txt").read_text(encoding="utf-8"))
    fix = explain_finding(rule, ev).fix
    assert "LINE" not in fix and "prints none, only offsets" in fix
    assert fix.count("prints none") == 1 and "the reported source line" not in fix  # said once
    # the memcheck demo prints its line: the fix names it
    ev = collect((SAN / "doc-04-understanding-memcheck-errors.txt").read_text(encoding="utf-8"))
    fix = explain_finding(rule, ev).fix
    assert "`memcheck_demo.cu:6`" in fix and "LINE" not in fix
    # "the reported source line" of another rule: named when printed, said to be missing when not
    write = _rule("sanitizer-oob-global-write")
    assert "`memcheck_demo.cu:6`" in explain_finding(write, ev).fix
    ev = collect((SAN / "case-onnxruntime-resize-trilinear-oob-write.txt").read_text(encoding="utf-8"))
    assert "prints none, only offsets" in explain_finding(write, ev).fix


def test_a_compiler_crash_adds_the_compiler_bug_alternative() -> None:
    data = yaml.safe_load((ROOT / "rules" / "compiler" / "ptxas-crashed.yaml").read_text(encoding="utf-8"))
    ctx = collect(data["examples"]["match"][0]["log"]).context()  # ggml-org/llama.cpp#8714
    note = located_caveats(None, "compile-source-error", ctx)
    assert note is not None and "compiler bug" in note and "ptxas" in note
    assert located_caveats("x", "compiler-internal-error", ctx) == "x"  # the rule already says so
    assert located_caveats(None, "compile-source-error", collect("nvcc error: x.cu(3): error").context()) is None


def test_values_over_every_gpu_contradict_a_this_gpu_answer() -> None:
    # state-spaces/mamba (corpus holdout): 663808 bytes of shared memory, over every GPU's per-block limit
    ctx = collect(_corpus_log("holdout/issues.yaml", "mamba2-headdim-512-smem-any-gpu")).context()
    rule = _rule("triton-out-of-resources-smem")
    moves = C.steps(rule, ctx)
    assert any(d == C.CONTRADICTED for d, _ in moves)
    assert not any(d > 0 for d, _ in moves)
    assert C.adjusted(rule, ctx) <= C.OVER_EVERY_CEILING < C.ANSWERS_FROM  # a candidate, not the answer
    # the same message within a real GPU's limit (RTX 3090, holdout): the values raise it
    ctx = collect(_corpus_log("holdout/issues.yaml", "flood-segattn-smem-rtx3090")).context()
    assert C.adjusted(rule, ctx) > rule.confidence


def test_a_request_over_every_gpu_abstains_and_the_words_do_not_answer_for_it() -> None:
    # labelled threads split on it (a head dimension typed wrong: the caller's; a default config no GPU holds: the
    # kernel's), and the message cannot tell them apart: both stay candidates, and the text prior, whose corpus
    # reads "out of resource: shared memory" as the caller's, does not answer in their place
    from diagnose.classify import classify_record
    from diagnose.inputs import InputRecord
    from diagnose.matcher import Matcher
    from diagnose.rules import default_rules

    text = _corpus_log("holdout/issues.yaml", "mamba2-headdim-512-smem-any-gpu")
    report = classify_record(InputRecord(id="x", text=text), Matcher(default_rules()), text_prior=True)
    assert report.status == "unknown", (report.category, report.rule)
    (top, *_) = report.diagnosis.findings
    assert (top.rule, top.category) == ("triton-out-of-resources-smem", "runtime-assumption")
    assert C.held_by_input(report.diagnosis.findings, report.evidence.context())
    assert "kernel-logic" in (top.caveats or "")  # the check that decides names the other owner


def test_kernel_logic_in_a_library_is_lowered_and_moves_are_bounded() -> None:
    ctx = collect((SAN / "case-onnxruntime-resize-trilinear-oob-write.txt").read_text(encoding="utf-8")).context()
    rule = _rule("sanitizer-oob-global-write")
    # memcheck's record of the access in onnxruntime's kernel decides: the library's defect, no penalty
    assert not any(d == C.LIBRARY for d, _ in C.steps(rule, ctx))
    # a kernel-logic answer in a library's code without such a record is lowered
    text_only = _rule("nvcc-source-error")
    assert any(d == C.LIBRARY for d, _ in C.steps(text_only, {"location_kind": "library", "location_library": "CuPy"}))
    assert C.apply(0.5, [(-1.0, "x")]) == 0.5 + C.MAX_DOWN
    assert C.apply(0.98, [(0.5, "x")]) == C.CEILING
    assert C.apply(0.1, [(-0.2, "x")]) == C.FLOOR
    assert C.apply(0.7, []) == 0.7


def test_a_finding_says_how_the_evidence_moved_its_confidence() -> None:
    rep = _diagnose(SAN / "case-onnxruntime-resize-trilinear-oob-write.txt")
    best = rep.diagnosis.best
    moved = dict(best.facts).get("confidence")
    assert moved is not None and "calibrated" in moved and "a sanitizer record naming the kernel" in moved
    assert "library (onnxruntime)" not in moved  # the record in its kernel makes it the library's defect
    assert best.confidence == C.assess(_rule(best.rule), rep.evidence.context())[0]


def _fix_of(suite: str, case_id: str, tmp_path: Path) -> Any:
    log = tmp_path / f"{case_id}.log"
    log.write_text(_corpus_log(suite, case_id), encoding="utf-8")
    return _diagnose(log)


def test_a_library_kernel_in_a_gtest_run_leads_with_the_kernel_fix(tmp_path: Path) -> None:
    # cudf#24034 and cudf#20967: racecheck over libcudf's own Parquet gtests; the reader is cuDF's developer,
    # so the barrier fix comes first and "upgrade cuDF" only for someone whose own tests call it
    # another wording: memcheck's out-of-bounds read in a cuDF Parquet gtest (holdout2)
    for suite, case_id, first in (
        ("holdout23/issues.yaml", "h23a-cudf-delta-decode-racecheck-barrier", "Put a block barrier"),
        (
            "holdout23/issues.yaml",
            "h23a-cudf-delta-byte-array-warp-vote-race",
            "Order the write and the read with a barrier",
        ),
        ("holdout2/issues.yaml", "cudf-parquet-decode-page-oob-read", "Guard the access"),
    ):
        best = _fix_of(suite, case_id, tmp_path).diagnosis.best
        assert best is not None and best.category == "kernel-logic"
        assert best.fix.startswith(first), best.fix
        assert "most likely cuDF's own test suite" in best.fix
        assert "not in your code" not in best.fix
