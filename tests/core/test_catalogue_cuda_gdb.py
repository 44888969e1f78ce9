"""cuda-gdb's reports of a fault outside the shared or local memory window (diagnose/data/catalogue/cuda-gdb.yaml).

The real log is a development set case (corpus/holdout23 h23b-raytracedicom-superposition-shared-oob,
ferdymercury/RayTraceDicom#2); the global-space lines are cuda-gdb's integrated memcheck report as public
repositories' debugging notes quote it."""

from __future__ import annotations

from corpus_logs import corpus_log, verdict

FAMILY = "cuda-gdb-shared-local-window-fault"


def test_a_shared_space_fault_is_the_kernels_indexing() -> None:
    log = corpus_log("holdout23", "h23b-raytracedicom-superposition-shared-oob")
    assert verdict(log) == ("diagnosed", "kernel-logic", FAMILY)


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
