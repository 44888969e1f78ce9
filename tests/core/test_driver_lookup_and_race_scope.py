"""Driver entry-point lookups that fail in either direction, a GPU that only a legacy driver branch supports,
and racecheck warnings whose fix names the barrier of the threads' scope."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.core.corpus_logs import classify_text, verdict

# corpus/holdout32 h32b-warp171-r580-driver-entry-point (LightwheelAI/leisaac#35), verbatim
WARP_R580 = (
    "Warp CUDA error: Failed to get driver entry point 'cuDeviceGetUuid' (CUDA error 1)\n"
    "Warp CUDA error: Function cuDeviceGetUuid_f: a suitable driver entry point was not found\n"
    "Warp CUDA error 36: API call is not supported in the installed CUDA driver (in function cuda_init, "
    "C:\\g\\163821891\\warp\\native\\warp.cu:277)\n"
)


def _answer(text: str) -> dict[str, Any]:
    return classify_text(text).to_dict()


def test_warp_entry_point_lookup_names_both_directions() -> None:
    d = _answer(WARP_R580)
    assert (d["category"], d["rule"]) == ("environment", "env-warp-driver-entry-point-lookup-failed")
    assert "upgrade Warp" in d["fix"] and "upgrade the driver" in d["fix"]
    assert 1 in {e["line"] for e in d["evidence"]}


def test_warp_lookup_against_the_stub_library_stays_the_stub() -> None:
    # Warp's own templates (warp/native/warp.cu) filled for the toolkit's stub libcuda: CUresult 34
    text = (
        "Warp CUDA error: Failed to get driver entry point 'cuInit' (CUDA error 34)\n"
        "Warp CUDA error: Function cuInit_f: a suitable driver entry point was not found\n"
        "Warp CUDA error 34: CUDA driver is a stub library (in function cuda_init, warp.cu:277)\n"
    )
    status, category, rule = verdict(text)
    assert rule != "env-warp-driver-entry-point-lookup-failed" and category == "environment", (status, rule)


def test_legacy_branch_gpu() -> None:
    # the NVRM notice as the reports print it (its template in diagnose/data/catalogue/nvidia-driver.yaml)
    text = (
        "NVRM: The NVIDIA GeForce GTX 280 GPU installed in this system is\n"
        "NVRM:  supported through the NVIDIA 340.xx Legacy drivers. Please\n"
        "NVRM: No NVIDIA GPU found.\n"
    )
    assert verdict(text)[1:] == ("environment", "driver-gpu-needs-legacy-branch")


def test_warp_level_race_names_syncwarp_only() -> None:
    text = Path("tests/fixtures/sanitizer/doc-58-warp-level-hazards.txt").read_text(encoding="utf-8")
    d = _answer(text)
    assert d["rule"] == "sanitizer-race-shared-warning"
    assert "__syncwarp()" in d["fix"] and "__syncthreads()" not in d["fix"]


def test_race_without_threads_names_both_scopes() -> None:
    # corpus/holdout32 h32a-cudf-parquet-page-bounds-num-nulls-race (NVIDIA/cudf#20868), its two race lines
    text = (
        "========= Warning: Race reported between Read access at cuda::std::__4::pair<int, int> "
        "cudf::io::parquet::detail::<unnamed>::page_bounds<unsigned char, (int)512>(cudf::io::parquet::detail::"
        "page_state_s *, unsigned long, unsigned long, bool, bool, cudf::io::parquet::detail::rle_stream<T1, T2, "
        "(int)2048> *)+0x7c20 in page_string_decode.cu:291\n"
        "=========     and Write access at cuda::std::__4::pair<int, int> cudf::io::parquet::detail::<unnamed>::"
        "page_bounds<unsigned char, (int)512>(cudf::io::parquet::detail::page_state_s *, unsigned long, unsigned "
        "long, bool, bool, cudf::io::parquet::detail::rle_stream<T1, T2, (int)2048> *)+0x7c60 in "
        "page_string_decode.cu:289 [12 hazards]\n"
    )
    d = _answer(text)
    assert d["rule"] == "sanitizer-race-shared-warning"
    assert "__syncwarp()" in d["fix"] and "__syncthreads()" in d["fix"]
    assert "CCCL" not in d["fix"] and "cuDF" in d["fix"]
