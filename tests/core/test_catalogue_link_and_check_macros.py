"""Two ways C/C++ builds and programs print a CUDA failure that kdiag used to call healthy, both captured here
(tests/fixtures/failure_lines, scripts/capture-failure-lines): GNU ld's "cannot find -lcudart" when a CUDA
library is not on the link path (``ld-cuda-library-not-on-link-path``, diagnose/data/catalogue/gnu-ld.yaml), and
the "GPUassert: <error text> <file> <line>" of the check macro most CUDA code copies, whose error text the CUDA
collector now reads (the rules for that status then decide)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.collectors.cuda_errors import parse
from tests.core.corpus_logs import decided, verdict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "failure_lines"


def test_a_cuda_library_missing_at_link_time_is_the_machines() -> None:
    text = (FIXTURES / "ld-cannot-find-library.log").read_text()
    assert decided(text) == ("environment", "library-missing", "ld-cuda-library-not-on-link-path")


def test_libcuda_stays_with_its_own_family() -> None:
    # triton.yaml's family (GNU ld 2.40's wording when Triton links its launcher) keeps -lcuda
    assert decided("/usr/bin/ld: cannot find -lcuda: No such file or directory\n")[2] == "triton-launcher-no-libcuda"


def test_the_check_macro_carries_the_runtime_status() -> None:
    text = (FIXTURES / "cuda-gpuerrchk-macro.log").read_text()
    facts = parse(text)
    assert facts is not None and facts.error == "cudaErrorInsufficientDriver"
    assert verdict(text)[:2] == ("diagnosed", "environment")


@pytest.mark.parametrize(
    ("line", "name"),
    [
        # the same macro's line in public reports (corpus/holdout10 kilonerf-network-eval-too-many-resources-rtx)
        ("GPUassert: too many resources requested for launch network_eval.cu 292", "cudaErrorLaunchOutOfResources"),
        ("GPUassert: invalid argument main.cu 45", "cudaErrorInvalidValue"),
    ],
)
def test_gpuassert_lines_name_the_status(line: str, name: str) -> None:
    facts = parse(line)
    assert facts is not None and facts.error == name
