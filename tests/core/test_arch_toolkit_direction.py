"""`nvcc fatal : Unsupported gpu architecture 'compute_60'` fits a toolkit too old for the arch and one that
dropped it. The toolkit release the log names decides (diagnose/collectors/toolkit_release.py against
diagnose/data/cuda_arch_releases.yaml); without one, neither direction is asserted and the answer gives
both and the check. The logs are real: captured here with nvcc 13.0 and CMake (tests/fixtures/compiler/), or
corpus cases (named)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.collectors import compiler
from diagnose.collectors.toolkit_release import arch_releases, arch_side, toolkit_release
from tests.core.corpus_logs import classify_text, corpus_log, decided

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "compiler"


@pytest.mark.parametrize("name", ["nvcc-version-dropped-arch.log", "cmake-dropped-arch.log"])
def test_a_release_after_the_arch_was_removed_is_dropped(name: str) -> None:
    text = (FIXTURES / name).read_text()
    facts = compiler.parse(text)
    assert facts is not None
    assert (facts.unknown_arch, facts.toolkit_release, facts.arch_toolkit_side) == ("compute_60", "13.0", "dropped")
    assert decided(text) == ("environment", "toolkit-dropped-arch", "nvcc-arch-dropped-by-toolkit")


def test_a_release_before_the_arch_existed_is_too_old() -> None:
    # erikwijmans/Pointnet2_PyTorch#91: setuptools names the CUDA 8.0 nvcc that rejected compute_75
    text = corpus_log("holdout5", "pointnet2-nvcc-cuda8-compute75")
    assert toolkit_release(text) == "8.0"
    assert decided(text) == ("environment", "toolkit-too-old-for-arch", "nvcc-unsupported-arch")
    d = classify_text(text).diagnosis
    assert d is not None and d.best is not None and "CUDA 8.0" in d.best.what


@pytest.mark.parametrize(
    ("where", "case_id"),
    [
        ("holdout19", "h19a-torch-build-cuda75-compute60"),  # CUDA 7.5 only in the thread: too old
        ("holdout17", "h17a-gbgpu-compute35-cuda12"),  # CUDA 12.2 only in the thread: dropped
    ],
)
def test_without_a_release_neither_direction_is_asserted(where: str, case_id: str) -> None:
    report = classify_text(corpus_log(where, case_id))
    d = report.diagnosis
    assert d is not None and d.best is not None
    assert report.category == "environment"
    rules = [f.rule for f in d.findings]
    assert "nvcc-arch-dropped-by-toolkit" not in rules and "nvcc-unsupported-arch" not in rules
    assert d.rule == "nvcc-unsupported-gpu-arch"
    fix = d.best.fix or ""
    assert fix.startswith("First `nvcc --version`") and "--list-gpu-arch" in fix
    assert "is too old for it" in fix and "has dropped" in fix


def test_releases_of_an_arch() -> None:
    assert arch_releases("sm_35") == ("5.0", "12.0")
    assert arch_releases("lto_89") == ("11.8", None)
    assert arch_releases("sm_1000") == (None, None)
    assert arch_side("compute_89", "11.5") == "too-old"
    assert arch_side("compute_89", "12.4") == "inside"
    assert arch_side("sm_30", "10.2") is None  # its first release is not recorded, and 10.2 still had it


def test_two_releases_name_none() -> None:
    text = "/usr/local/cuda-11.8/bin/nvcc -c a.cu\nCuda compilation tools, release 12.1, V12.1.105"
    assert toolkit_release(text) is None
    assert toolkit_release("-- The CXX compiler identification is GNU 12.2.0") is None
