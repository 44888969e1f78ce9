"""The Visual Studio debugger's exception report inside an NVIDIA CUDA library DLL
(diagnose/data/catalogue/windows-debugger.yaml): kdiag abstains with the install first among the candidates.

The real log is a development set case (corpus/holdout23 h23b-ort-cudnn-not-installed, microsoft/onnxruntime#16677);
the line in another module is the debugger's report as a public repository's comment quotes it."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log

FAMILY = "msvc-debugger-exception-in-cuda-library"


def test_an_exception_in_a_cudnn_dll_abstains_with_the_install_first() -> None:
    report = classify_text(corpus_log("holdout23", "h23b-ort-cudnn-not-installed"))
    assert report.status == "unknown"
    d = report.diagnosis
    assert d is not None
    assert d.findings[0].rule == f"{FAMILY}-as-environment"


def test_an_exception_in_another_module_is_not_this_family() -> None:
    line = (
        "Exception thrown at 0x00007FFA6AEAB1ED (ucrtbased.dll) in IDA_TOP_Encryptor.exe: 0xC0000005: "
        "Access violation reading location 0x0000000100000000."
    )
    d = classify_text(line).diagnosis
    assert d is None or all(not f.rule.startswith(FAMILY) for f in d.findings)
