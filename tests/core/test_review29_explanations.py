"""Explanations fixed from the review of the twenty-ninth set, each for its family: a memcheck header without its
address line is out of bounds *or* misaligned, a refused opt-in to more dynamic shared memory is over this GPU's
per-block maximum (never a grid dimension), the kernel-parameter limit that ptxas already prints as 0x7ffc is not
raised by a newer toolkit, an arch's removal names the release that removed it, a race report does not claim a
symptom the log does not show, and a misaligned address in a kernel a code generator wrote is not the input's first.

Fixture lines are the logs of labelled dev cases (corpus id given) or rule examples, quoted verbatim.
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, finding_of

KOKKOS = corpus_log("holdout29", "h29b-kokkos-reduce-complex-double-smem-misaligned")  # kokkos/kokkos#2989
# compute-sanitizer-samples#19: the same header followed by its address line
TRITON_SHARED_OOB = (
    "========= Invalid __shared__ ? of size 2048 bytes\n"
    "=========     at 0x2570 in /root/code/triton/python/tutorials/03-matrix-multiplication.py:223:"
    "matmul_kernel_0d1d2d3de4de5de6de7c8de9c10de11c\n"
    "=========     by thread (224,0,0) in block (4,0,0)\n"
    "=========     Address 0x1bc20 is out of bounds\n"
)
BATCH_NORM = corpus_log("holdout8", "torch-batch-norm-backward-empty-invstd-null-read")  # a bare __global__ header
IKLLAMA = corpus_log("holdout29", "h29a-ikllama-mla-fa-smem-turing")  # ikawrakow/ik_llama.cpp#2343
CUDAJL_PARAMS = corpus_log("holdout29", "h29b-cudajl-broadcast-param-space")  # JuliaGPU/CUDA.jl#2119
# ptxas 13.0.88 run here on the PTX nvcc 13.0.88 wrote for a kernel taking a struct by value, its parameter array
# enlarged in the PTX (nvcc's front end refuses the larger struct itself): at PTX ISA 9.0, then at ISA 7.8 (first line)
PTXAS13_PARAMS = (
    "ptxas big40k.ptx, line 36; error   : Entry function '_Z1k3BigPf' uses too much parameter space (0x9c48 bytes,"
    " 0x7ffc max).\nptxas fatal   : Ptx assembly aborted due to errors\n"
)
PTXAS13_OLD_ISA_PARAMS = (
    "ptxas big78.ptx, line 36; error   : Entry function '_Z1k3BigPf' uses too much parameter space (0x1f48 bytes,"
    " 0x1100 max).\nptxas fatal   : Ptx assembly aborted due to errors\n"
)
FLASHLIGHT = corpus_log("holdout29", "h29a-flashlight-cuda11-compute30")  # flashlight/flashlight#213
AMREX = corpus_log("holdout29", "h29a-amrex-reduce-add-racecheck")  # AMReX-Astro/Castro#679
CUDAJL_LDG = corpus_log("holdout29", "h29a-cudajl-const-ldg-misaligned")  # JuliaGPU/CUDA.jl#548
TRITON_MISALIGNED = corpus_log("holdout2", "triton-inductor-misaligned-fixed-1341")  # triton-lang/triton#1320


def test_a_shared_header_alone_names_both_causes_and_the_address_check() -> None:
    f = finding_of(KOKKOS, "sanitizer-oob-shared")
    assert "is misaligned" in f.what and "is out of bounds" in f.what
    assert "wider than any" not in f.why and "false positive" not in f.why.split("Only an access")[0]
    assert "A 16-byte access is an ordinary per-thread access" in f.why
    assert "modulo the access size" in f.fix and "align" in f.fix


def test_a_shared_report_with_its_out_of_bounds_line_says_so_alone() -> None:
    f = finding_of(TRITON_SHARED_OOB, "sanitizer-oob-shared")
    assert "beyond the block's shared-memory window" in f.what
    assert "is misaligned" not in f.what and "A misaligned access" not in f.why


def test_a_bare_global_header_says_it_can_be_misaligned_too() -> None:
    f = finding_of(BATCH_NORM, "sanitizer-oob-header-only")
    assert "is misaligned" in f.why and "fell outside every allocation" not in f.why


def test_a_refused_max_dynamic_smem_opt_in_is_over_this_gpus_limit() -> None:
    assert decided(IKLLAMA) == (
        "runtime-assumption",
        "smem-exceeds-device-limit",
        "cuda-invalid-value-func-set-max-dynamic-smem",
    )
    d = classify_text(IKLLAMA).diagnosis
    assert d is not None
    assert all(f.failure_mode != "grid-dim-limit" for f in d.findings)
    assert "64 KiB on sm_75" in d.best.why


@pytest.mark.parametrize("text", [CUDAJL_PARAMS, PTXAS13_PARAMS])
def test_the_param_space_fix_does_not_offer_a_newer_toolkit_past_its_limit(text: str) -> None:
    f = finding_of(text, "ptxas-too-much-local-or-global-data")
    assert "32,764 bytes" in f.why and "from CUDA 12.1 on Volta" in f.why
    assert "no newer toolkit helps" in f.fix and "building with CUDA 12.1+" not in f.fix


def test_the_param_space_fix_offers_the_raised_limit_under_the_old_one() -> None:
    f = finding_of(PTXAS13_OLD_ISA_PARAMS, "ptxas-too-much-local-or-global-data")
    assert "(4,352 bytes)" in f.fix and "building with CUDA 12.1+ (PTX ISA 8.1) raises it" in f.fix
    assert "no newer toolkit helps" not in f.fix


def test_a_dropped_arch_names_the_release_that_removed_it() -> None:
    f = finding_of(FLASHLIGHT, "nvcc-unsupported-gpu-arch")
    assert "CUDA 11.0 removed `compute_30`" in f.why and "Kepler in CUDA 12" not in f.why
    assert "CUDA 11.0 or newer has dropped it" in f.fix
    assert "The code or build needs" not in f.what


def test_a_race_report_does_not_claim_the_programs_variation() -> None:
    f = finding_of(AMREX, "sanitizer-race-shared")
    assert "varies between runs" not in f.why and "a defect to fix" in f.why
    assert f.caveats is not None and "other causes stay possible" in f.caveats


@pytest.mark.parametrize("text", [CUDAJL_LDG, TRITON_MISALIGNED])
def test_a_misaligned_address_in_generated_code_is_not_the_inputs_first(text: str) -> None:
    f = finding_of(text, "cuda-misaligned-address")
    assert f.caveats is not None
    assert "is the input's" not in f.caveats
    assert "an element offset used as a byte offset" in f.caveats and "without the construct" in f.caveats


def test_a_misaligned_address_with_no_code_generator_keeps_the_inputs_check() -> None:
    f = finding_of("RuntimeError: CUDA error: misaligned address\n", "cuda-misaligned-address")
    assert f.caveats is not None and "is the input's" in f.caveats
