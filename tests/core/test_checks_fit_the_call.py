"""The check names what the log shows, in the terms of the call it names.

- A library report that names the kernel launched last (QUDA's errorQuda) makes that kernel the subject of the
  illegal-address check, and a log that shows CUDA_LAUNCH_BLOCKING=1 set is not asked to set it again.
- A copy or memset refused with "invalid argument" is not said to involve no kernel when the log goes on with a
  kernel's fault; a zero-count input line is quoted; the size's unit is the call's (bytes, or 16/32-bit elements
  for cuMemsetD16/D32).
- A launch-limit candidate is not offered for an allocation, copy or memset the log names.
- An access after a small buffer, fewer than 2^31 elements away, is an index value out of range, not a wrap;
  one before it (a negative offset) is the wrap.
- The context check says which owner a fork after CUDA's initialisation is (the environment candidate) and which
  a context never made current is (the code's).

Logs: the public cases of corpus/holdout12, holdout25 and holdout26 (each with its repo#issue there).
"""

from __future__ import annotations

from diagnose.collectors import collect
from tests.core.corpus_logs import classify_text, corpus_log


def test_the_kernel_a_library_names_as_launched_last_leads_the_illegal_address_check() -> None:
    log = corpus_log("holdout26", "h26a-quda-hisq-mg-ghost-pack-oob")
    assert collect(log).context()["log_last_kernel"] == "N4quda4PackIfLi3ELb0EEE"
    report = classify_text(log)
    assert report.status == "unknown"
    check = str(report.to_dict()["next_check"])
    assert check.startswith("The log names N4quda4PackIfLi3ELb0EEE as the kernel launched last"), check
    assert "First rerun with CUDA_LAUNCH_BLOCKING=1" not in check


def test_a_run_with_launch_blocking_set_is_seen_and_torchs_hint_is_not_a_setting() -> None:
    ctx = collect(corpus_log("holdout12", "pytorch-cuda-kernel-loop-increment-overflow")).context()
    assert ctx["log_launch_blocking"] is True
    hint = corpus_log("holdout17", "h17a-gauhuman-merge-sort-ima-cuda114")
    assert collect(hint).context()["log_launch_blocking"] is False


def test_a_refused_copy_beside_a_kernel_fault_quotes_the_empty_input() -> None:
    report = classify_text(corpus_log("holdout25", "h25b-gunrock-sssp-c-interface-host-csr"))
    what = str(report.to_dict()["what"])
    assert "No kernel launch is involved" not in what
    assert "`Degree Histogram (0 vertices, 0 edges):`" in what and "second error" in what


def test_a_memset_size_is_in_the_unit_of_the_call() -> None:
    report = classify_text(corpus_log("holdout26", "h26b-taichi-ndarray-fill-size-in-bytes"))
    fix = str(report.to_dict()["fix"])
    assert "cuMemsetD32_v2" in fix and "32-bit elements for `cuMemsetD32*`" in fix
    assert "a size must be the bytes" not in fix


def test_an_allocation_refused_gets_no_launch_limit_candidate() -> None:
    for where, case in (
        ("holdout26", "h26b-modern-mvs-max-images-malloc-array"),
        ("holdout26", "h26b-taichi-ndarray-fill-size-in-bytes"),
        ("holdout25", "h25b-gunrock-sssp-c-interface-host-csr"),
    ):
        report = classify_text(corpus_log(where, case))
        assert report.diagnosis is not None
        modes = {f.failure_mode for f in report.diagnosis.findings}
        assert "grid-dim-limit" not in modes, (case, modes)


def test_the_context_check_gives_fork_to_the_environment_candidate() -> None:
    report = classify_text(corpus_log("holdout26", "h26b-openmm-exampleplugin-invalid-context"))
    check = str(report.to_dict()["next_check"])
    assert "is the program's own" not in check
    assert "the environment candidate" in check and "`cuCtxGetCurrent`" in check


def test_an_access_after_a_buffer_under_2_31_elements_is_an_index_value_not_a_wrap() -> None:
    lu = classify_text(corpus_log("holdout26", "h26a-torch-lu-solve-bad-pivots-oob")).to_dict()
    assert (lu["rule"], lu["category"], lu["failure_mode"]) == (
        "sanitizer-oob-index-value-in-first-block",
        "runtime-assumption",
        "index-out-of-range",
    )
    assert "nothing wrapped" in str(lu["what"])
    pool = classify_text(corpus_log("holdout13", "h13a-torch-maxpool-dilation-int32max-oob-read")).to_dict()
    assert (pool["rule"], pool["failure_mode"]) == ("sanitizer-oob-int32-wrap-in-first-block", "int32-index-overflow")


def test_a_projects_own_cuda_source_asks_for_a_clean_rebuild_before_the_kernel() -> None:
    for where, case, source in (
        (
            "holdout25",
            "h25b-torchmcubes-large-grid-small-gpu",
            "/home/chung/workspace/mcubes_pytorch/cxx/mcubes_cuda.cu",
        ),
        ("holdout6", "3dgs-rasterizer-ima-cub-symbol-clash", "cuda_rasterizer/rasterizer_impl.cu"),
    ):
        report = classify_text(corpus_log(where, case))
        assert report.status == "unknown"
        check = str(report.to_dict()["next_check"])
        assert f"The error is reported from {source}, a CUDA source the program compiles itself" in check, check
        assert "-fno-gnu-unique" in check and "halve the size" in check


def test_a_framework_or_toolkit_source_is_not_the_programs_own() -> None:
    log = corpus_log("holdout7", "extension-cpp-cuda1-no-device-guard")
    assert collect(log).context()["log_project_source"] is None
