"""The check for an illegal address keeps a short core and only the paragraphs this log's facts support, and a
library's code (a package being built, a library's own header) gets the library's fix first.

- A bare "an illegal memory access was encountered" gets the core (CUDA_LAUNCH_BLOCKING, the inputs' range against
  memcheck) and one sentence on the machine and on more than one GPU: no compiler, toolkit or framework it
  does not show.
- A host the log names (Open MPI's signal report) leads the check with running on another machine.
- A compiler, more than one GPU, a toolkit release or library: each adds its own paragraph.
- A compile error in luarocks' temporary build of a package, and a race inside Kokkos's own header, lead with
  pinning/upgrading and reporting upstream rather than an edit of that code.

Logs: the public cases of the dev corpus (each with its repo#issue there).
"""

from __future__ import annotations

from diagnose.collectors import collect, log_words
from tests.core.corpus_logs import classify_text, corpus_log

BARE = "RuntimeError: CUDA error: an illegal memory access was encountered\n"  # fla-org/flash-linear-attention#186


def _check(text: str) -> str:
    report = classify_text(text)
    assert report.status == "unknown", report.status
    return str(report.to_dict()["next_check"]).split(" Not checked here:")[0]


def test_a_bare_illegal_address_gets_the_short_core() -> None:
    check = _check(BARE)
    assert len(check.split()) < 250, len(check.split())  # it was over 500 words
    assert "CUDA_LAUNCH_BLOCKING=1" in check and "compute-sanitizer --tool memcheck" in check
    assert "CUDA_VISIBLE_DEVICES=0" in check and "one machine only" in check
    for absent in ("torch.compile", "Julia", "XLA", "Triton", "Thrust", "another CUDA toolkit"):
        assert absent not in check, absent


def test_a_host_the_log_names_leads_the_check() -> None:
    log = corpus_log("holdout24", "h24a-picongpu-ima-defective-node")
    check = _check(log)
    assert check.startswith("The log names the host taurusi2061 as the one that failed"), check
    assert check.index("another machine") < check.index("compute-sanitizer")
    assert "pip" not in check and "torch" not in check  # a C++ program's log


def test_open_mpi_and_slurm_name_the_host() -> None:
    # Open MPI's signal report in a public CI log (opal/util/stacktrace.c's format, another host and program)
    assert log_words.host("[fv-az1050-229:66932] *** Process received signal ***\n") == "fv-az1050-229"
    assert log_words.host("Segmentation fault\n") is None


def test_each_fact_adds_its_paragraph() -> None:
    two = _check(corpus_log("holdout17", "h17a-causal-conv1d-seqidx-oob"))  # NCCL watchdog on rank 1
    assert "The log shows more than one GPU at work" in two and "wrote or tuned" not in two
    julia = _check(corpus_log("holdout8", "cudanative-grid-larger-than-arrays-illegal-address"))
    assert "Julia (CUDA.jl) wrote or tuned the kernel" in julia and "torch.compile" not in julia
    inductor = _check(corpus_log("holdout6", "inductor-resnet18-bs4096-int32-indexing"))
    assert "TorchInductor (torch.compile) wrote or tuned the kernel" in inductor and "2^31" in inductor
    pmap = corpus_log("holdout13", "h13b-jax-pmap-ifft-two-gpus-illegal-address")
    ctx = collect(pmap).context()
    assert ctx["log_kernel_compiler"] == "XLA" and ctx["log_multi_gpu"] and ctx["log_cuda_toolkit"] == "cuBLAS"
    assert "The log names the CUDA toolkit's cuBLAS" in _check(pmap)


def test_a_package_being_built_is_the_packages() -> None:
    log = corpus_log("holdout24", "h24a-cutorch-half-double-conversion")
    ctx = collect(log).context()
    assert (ctx["location_kind"], ctx["location_library"], ctx["location_package_build"]) == (
        "library",
        "cutorch",
        "luarocks",
    )
    # the source-error rule's answer (the first candidate where the calibration abstains on it)
    report = classify_text(log)
    assert report.diagnosis is not None and report.diagnosis.findings[0].rule == "nvcc-source-error"
    fix = str(report.diagnosis.findings[0].fix)
    assert fix.startswith("The failing code is cutorch's, compiled while luarocks builds and installs it"), fix
    assert fix.index("report it upstream") < fix.index("fix the first error first")


def test_a_race_inside_kokkos_is_kokkos() -> None:
    log = corpus_log("holdout24", "h24b-kokkos-reduce-intrawarp-race-sm50")
    ctx = collect(log).context()
    assert (ctx["location_kind"], ctx["location_library"]) == ("library", "Kokkos")
    fix = str(classify_text(log).to_dict()["fix"])
    assert fix.startswith("The failing kernel is inside Kokkos"), fix
    assert fix.index("Upgrade Kokkos") < fix.index("__syncthreads()")
