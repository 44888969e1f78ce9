"""Families learned from the misses of the twenty-sixth set's part b (neon, LAMMPS, CUDA arrays): each decided from
what decides it, or left undecided with the candidates and the check that decides.

Fixture lines are the logs of labelled dev cases (corpus id given), lines of other public reports of the same
family (the issue named beside them), or the tool's own message with its placeholders filled (the source named).
"""

from __future__ import annotations

import pytest
from corpus_logs import classify_text, corpus_log, decided, verdict

from diagnose.collectors import collect
from diagnose.report import next_check

# --- a library's check that states only the minimum compute capability ---------------------------------------------

NEON_80 = corpus_log("holdout26", "h26b-neon-k80-below-cc50")  # NervanaSystems/neon#80: a K80 (3.7) under 5.0
# neon/backends/__init__.py (gen_backend) of the 1.x releases, its message with device_id 1
NEON_GEN_BACKEND = "RuntimeError: Device 1 does not have CUDA compute capability 3.0 or greater\n"
# the CUDA samples' NPP programs (jpegNPP main(), after printfNPPinfo's check)
NPP_SAMPLE = "jpegNPP requires a GPU with Compute Capability 2.0 or higher\n"


@pytest.mark.parametrize(("text", "need"), [(NEON_80, 5.0), (NEON_GEN_BACKEND, 3.0), (NPP_SAMPLE, 2.0)])
def test_a_stated_minimum_the_device_is_below_is_the_runs_assumption(text: str, need: float) -> None:
    assert decided(text) == ("runtime-assumption", "arch-feature-unavailable", "device-below-stated-minimum-cc")
    concept = collect(text).concept
    assert concept is not None
    assert concept.need_cc == need


@pytest.mark.parametrize(
    "text",
    [
        # a usage text listing a backend's requirement is no failure
        "  -backend  CUDA     Enable GPU acceleration using CUDA. Requires a GPU with compute capability 3.0 or higher.\n",
        # a warning that names the capability and goes on (no stated minimum the device failed)
        "WARNING: Your GPU does not have CUDA compute capability 8.0+ (Ampere architecture).\n",
    ],
)
def test_a_requirement_stated_without_a_failed_check_stays_silent(text: str) -> None:
    concept = collect(text).concept
    assert concept is None or "device-below-stated-minimum-cc" not in concept.families


# --- LAMMPS's lost atoms: the input's dynamics or an accelerated style ---------------------------------------------

LAMMPS_3895 = corpus_log("holdout26", "h26b-lammps-reaxff-kk-border-comm-host-lost-atoms")  # lammps/lammps#3895
# src/KSPACE/pppm.cpp (PPPM::particle_map): its message with the "ERROR on proc N: " prefix of Error::one
PPPM_OUT_OF_RANGE = "ERROR on proc 0: Out of range atoms - cannot compute PPPM\n"


@pytest.mark.parametrize("text", [LAMMPS_3895, PPPM_OUT_OF_RANGE])
def test_lost_atoms_abstain_with_both_owners_and_the_cpu_style_rerun(text: str) -> None:
    report = classify_text(text)
    assert report.category == "unknown"
    assert report.diagnosis is not None
    owners = {f.category for f in report.diagnosis.findings}
    assert {"runtime-assumption", "kernel-logic"} <= owners
    assert "plain CPU styles" in (next_check(report) or "")


# --- a CUDA array allocation refused: the extents the input gives ---------------------------------------------------

MODERN_MVS = corpus_log("holdout26", "h26b-modern-mvs-max-images-malloc-array")  # morsingher/modern_mvs#1
INSTANT_NGP_1541 = (  # NVlabs/instant-ngp#1541
    "13:02:51 ERROR    Uncaught exception: C:\\Users\\ITAEC\\Documents\\Github\\instant-ngp\\src\\render_buffer.cu:69 "
    "cudaMallocArray(&m_array, &desc, size.x, size.y, cudaArraySurfaceLoadStore) failed: invalid argument\n"
)


@pytest.mark.parametrize("text", [MODERN_MVS, INSTANT_NGP_1541])
def test_an_array_allocation_refused_is_the_extents_against_the_device_limits(text: str) -> None:
    assert decided(text) == (
        "runtime-assumption",
        "array-extent-over-device-limit",
        "cuda-invalid-value-in-array-alloc",
    )


def test_a_copy_refused_stays_the_copy_rule() -> None:
    # bayesian-object-tracking/dbot#2
    assert verdict("Cuda error: cudaMemset d_log_likelihoods: invalid argument.\n")[2] == (
        "cuda-invalid-value-in-copy-or-set"
    )
