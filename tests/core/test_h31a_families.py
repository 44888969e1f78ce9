"""Families learned from the misses of the thirty-first set's part a: a device symbol or kernel the runtime cannot
find (three owners, abstained on with the check for each), a CUDA intrinsic the compile does not declare (the
toolkit's name, not the source's), and a host access to managed memory the GPU owns (a platform without
concurrent managed access).

Fixture lines are the logs of labelled dev cases (corpus id given), output captured here (the fixture named), or
the tool's own message with its placeholders filled (the source named).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_logs import classify_text, corpus_log, decided, regenerated_table, verdict

from diagnose.collectors import compile_api, compiler
from diagnose.report import Report

ROOT = Path(__file__).resolve().parents[2]


def _report(text: str) -> Report:
    report = classify_text(text)
    assert report.diagnosis is not None
    return report


# --- named symbol not found: the build, the GPU's arch, or the name -------------------------------------------------

STDEXEC = corpus_log("holdout31", "h31a-stdexec-nvexec-example-symbol-not-found-mixed-gpus")
CANDLE_BF16 = corpus_log("holdout31", "h31a-candle-bf16-cast-named-symbol-pre-ampere")
CANDLE_F8 = corpus_log("holdout31", "h31a-candle-f8e4m3-kernel-name-mismatch")


@pytest.mark.parametrize("text", [STDEXEC, CANDLE_BF16, CANDLE_F8])
def test_symbol_not_found_abstains_with_the_check_for_each_owner(text: str) -> None:
    report = _report(text)
    assert report.category == "unknown"
    check = str(report.to_dict()["next_check"])
    assert "cuobjdump --list-elf" in check and "cuobjdump -symbols" in check
    for owner in ("environment", "runtime-assumption", "kernel-logic"):
        assert owner in check
    assert "sm_80" in check and "sm_89" in check


# --- an intrinsic the toolkit's headers declare, undeclared in the compile ------------------------------------------

ORT_HMUL2 = corpus_log("holdout31", "h31a-ort-hmul2-rn-undefined-cuda113")
CAPTURED = (ROOT / "tests/fixtures/compiler/nvcc-intrinsic-header-not-included.log").read_text()
CAPTURED_NO_VERSION = "".join(CAPTURED.splitlines(keepends=True)[2:])


def test_intrinsic_read_from_a_wrapped_nvcc_line() -> None:
    facts = compiler.parse(ORT_HMUL2)
    assert facts is not None
    assert (facts.tool, facts.first_error) == ("nvcc", 'identifier "__hmul2_rn" is undefined')
    assert (facts.toolkit_intrinsic, facts.toolkit_intrinsic_header) == ("__hmul2_rn", "cuda_fp16.h")


@pytest.mark.parametrize("text", [ORT_HMUL2, CAPTURED_NO_VERSION])
def test_intrinsic_without_the_toolkit_release_abstains(text: str) -> None:
    status, category, _ = verdict(text)
    assert (status, category) == ("unknown", "unknown")
    report = _report(text)
    assert any(f.rule == "nvcc-toolkit-intrinsic-undeclared" for f in report.diagnosis.findings)
    assert "include/cuda_fp16.h" in str(report.to_dict()["next_check"])


def test_intrinsic_the_logs_toolkit_declares_is_the_missing_include() -> None:
    assert decided(CAPTURED) == ("kernel-logic", "compile-source-error", "nvcc-toolkit-intrinsic-header-not-included")


def test_a_name_of_the_source_is_not_a_toolkit_intrinsic() -> None:
    text = (ROOT / "tests/fixtures/compiler/nvcc-undefined-identifier.log").read_text()
    facts = compiler.parse(text)
    assert facts is not None and facts.toolkit_intrinsic is None
    assert decided(text)[0] == "kernel-logic"


def test_intrinsics_of_every_compile_are_told_apart() -> None:
    assert compile_api.toolkit_intrinsic('identifier "__dp4a" is undefined') == ("__dp4a", "sm_61_intrinsics.h", True)
    assert compile_api.toolkit_intrinsic('identifier "__float2bfloat16" is undefined') == (
        "__float2bfloat16",
        "cuda_bf16.h",
        False,
    )


@pytest.mark.toolkit
def test_intrinsics_table_is_the_installed_toolkits(tmp_path: Path) -> None:
    shipped, fresh = regenerated_table("gen-cuda-intrinsics", "cuda_intrinsics.json", tmp_path)
    assert fresh["header"]["nvcc_version"] == shipped["header"]["nvcc_version"], (
        "regenerate: scripts/gen-cuda-intrinsics"
    )
    assert fresh["intrinsics"] == shipped["intrinsics"]


# --- managed memory touched by the host while the GPU owns it -------------------------------------------------------

ARBOR = corpus_log("holdout31", "h31a-arbor-k80-managed-memory-host-access")
# the cuda-gdb manual's 'GPU Error Reporting' table, CUDA_EXCEPTION_15, in cuda-gdb's "CUDA Exception:" form
CUDA_GDB_15 = "CUDA Exception: Invalid Managed Memory Access\n"
# cuda-memcheck's report of the CPU fault, as CMake's CTest cuda-memcheck parser is tested on it
MEMCHECK_CPU_FAULT = (
    "========= Fatal UVM CPU fault due to invalid operation\n=========     during read access to address 0x1357c92000\n"
)


@pytest.mark.parametrize("text", [ARBOR, CUDA_GDB_15, MEMCHECK_CPU_FAULT])
def test_host_access_to_managed_memory_is_the_platforms_assumption(text: str) -> None:
    assert decided(text) == (
        "runtime-assumption",
        "concurrent-managed-access-unsupported",
        "cuda-gdb-invalid-managed-memory-access",
    )


def test_a_uvm_gpu_fault_is_not_the_host_access() -> None:
    # the GPU side's fault (an address no managed allocation maps) says nothing of concurrent access
    text = "========= Fatal UVM GPU fault of type invalid pde due to invalid address\n"
    assert verdict(text)[2] != "cuda-gdb-invalid-managed-memory-access"


# --- a bfloat16 / fp8 kernel not found, with the GPU's capability printed -----------------------------------------

# the dev case's line, and deviceQuery's capability line (cuda-samples deviceQuery.cpp) with a value filled in
DEVICE_QUERY = "  CUDA Capability Major/Minor version number:    {cc}\n"


def test_bf16_kernel_missing_on_a_gpu_below_sm80_is_the_arch() -> None:
    text = CANDLE_BF16 + DEVICE_QUERY.format(cc="7.5")
    assert decided(text) == ("runtime-assumption", "arch-feature-unavailable", "cuda-symbol-not-found-dtype-below-arch")


@pytest.mark.parametrize("cc", ["8.0", "8.6", "9.0"])
def test_bf16_kernel_missing_on_a_gpu_that_has_bf16_stays_undecided(cc: str) -> None:
    assert verdict(CANDLE_BF16 + DEVICE_QUERY.format(cc=cc))[2] != "cuda-symbol-not-found-dtype-below-arch"


def test_mixed_gpus_printed_do_not_decide_the_arch() -> None:
    # nvidia-smi --query-gpu=name,compute_cap --format=csv on a machine with two generations
    smi = "name, compute_cap\nTesla T4, 7.5\nNVIDIA A100-SXM4-40GB, 8.0\n"
    assert verdict(CANDLE_BF16 + smi)[2] != "cuda-symbol-not-found-dtype-below-arch"


def test_a_dtype_in_a_path_is_not_the_kernels() -> None:
    line = "CUDA error cudaErrorSymbolNotFound [/src/bf16/bulk.cuh:239]: named symbol not found\n"
    assert verdict(line + DEVICE_QUERY.format(cc="7.5"))[2] != "cuda-symbol-not-found-dtype-below-arch"
