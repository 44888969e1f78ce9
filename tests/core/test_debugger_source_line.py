"""A cuda-gdb exception report that names the faulting source line in the program's own code is kernel-logic
evidence (the debugger maps the faulting PC to that line), not "the error text only".

The real log is a development set case (corpus/holdout10 cmssw-ecal-find-next-tower-block-warp-illegal-address,
cms-sw/cmssw#39617); the other wordings keep its lines and change only what cuda-gdb prints differently: the
exception name (cuda-gdb's exception table: CUDA_EXCEPTION_5 "Warp Out-of-range Address") and a PC line without
a source location (as cuda-gdb prints it for code built without line information)."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log, decided

RULE = "cuda-gdb-exception-at-user-source-line"
LOG = corpus_log("holdout10", "cmssw-ecal-find-next-tower-block-warp-illegal-address")


def test_the_faulting_source_line_decides_and_is_cited() -> None:
    assert decided(LOG) == ("kernel-logic", "oob-global-access", RULE)
    report = classify_text(LOG)
    assert report.diagnosis is not None and report.diagnosis.best is not None
    best = report.diagnosis.best
    assert any("UnpackGPU.cu:57" in c.text for c in best.evidence)
    assert "UnpackGPU.cu:57" in best.fix


def test_another_exception_name_of_the_same_fault() -> None:
    text = LOG.replace("Warp Illegal Address", "Warp Out-of-range Address").replace("_14,", "_5,")
    assert decided(text)[2] == RULE


def test_without_a_source_line_the_text_alone_does_not_decide() -> None:
    text = LOG.replace(
        " (UnpackGPU.cu:57 in _ZN4ecal3raw21find_next_tower_blockERPKmS2_jj inlined from UnpackGPU.cu:252)", ""
    )
    assert decided(text)[2] != RULE
