"""cuda-gdb's reports of a fault outside the shared or local memory window (diagnose/data/catalogue/cuda-gdb.yaml).

The real log is a development set case (corpus/holdout23 h23b-raytracedicom-superposition-shared-oob,
ferdymercury/RayTraceDicom#2); the global-space lines are cuda-gdb's integrated memcheck report as public
repositories' debugging notes quote it."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log, verdict

FAMILY = "cuda-gdb-shared-local-window-fault"


def test_a_shared_space_fault_is_the_kernels_indexing() -> None:
    # the kernel's indexing leads; whether kdiag answers it or abstains with it first follows the family's calibrated
    # record (its first-sight miss on holdout66, a fault in XLA's generated Triton GEMM, the code generator's)
    log = corpus_log("holdout23", "h23b-raytracedicom-superposition-shared-oob")
    status, category, rule = verdict(log)
    assert rule == FAMILY
    assert (status, category) in (("diagnosed", "kernel-logic"), ("unknown", "unknown"))
    report = classify_text(log)
    assert report.diagnosis is not None and report.diagnosis.findings[0].category == "kernel-logic"


def test_the_out_of_range_exception_alone_names_the_same_window() -> None:
    log = corpus_log("holdout23", "h23b-raytracedicom-superposition-shared-oob")
    text = "\n".join(line for line in log.splitlines() if "@shared" not in line and "Lane Illegal" not in line)
    assert verdict(text)[2] == FAMILY


def test_a_global_space_fault_is_not_this_family() -> None:
    text = (
        "Illegal access to address (@global)0xd80 detected.\n"
        'Thread 1 "array-add-bug" received signal CUDA_EXCEPTION_1, Lane Illegal Address.\n'
    )
    assert verdict(text)[2] != FAMILY
