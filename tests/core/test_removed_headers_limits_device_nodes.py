"""Three families the thirty-eighth set showed unread: a header a framework release removed (PyTorch 1.11's
THC), a library's input limit stated as what it refuses or supports ("label length >639 is not supported",
"only supports up to 3 dimensions"), and a container's NVIDIA device node missing on the host."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.collectors import compiler
from tests.core.corpus_logs import classify_text, corpus_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _decided(text: str) -> tuple[str, str]:
    report = classify_text(text)
    assert report.status == "diagnosed" and report.diagnosis is not None, report.status
    return report.diagnosis.category, report.diagnosis.rule or ""


def test_a_thc_header_captured_here_is_a_removed_framework_header() -> None:
    log = (FIXTURES / "compiler" / "nvcc-thc-header-removed.log").read_text()
    facts = compiler.parse(log)
    assert facts is not None
    assert (facts.missing_header, facts.missing_header_removed_in) == ("THC/THCAtomics.cuh", "PyTorch 1.11")
    assert _decided(log) == ("environment", "compiler-framework-header-removed")


@pytest.mark.parametrize("case", ["h38a-bevfusion-thc-removed-torch111", "h38a-torch-sampling-thctensor-removed"])
def test_both_reports_of_the_removed_thc_headers_decide(case: str) -> None:
    assert _decided(corpus_log("holdout38", case)) == ("environment", "compiler-framework-header-removed")


@pytest.mark.parametrize(
    "header",
    [
        "fatal error: CUDAApplyUtils.cuh: No such file or directory",  # the project's own header
        "fatal error: cub/cub.cuh: no such file or directory",  # the toolkit's (another rule)
    ],
)
def test_other_missing_headers_are_not_removed_framework_headers(header: str) -> None:
    facts = compiler.parse(header + "\n")
    assert facts is not None and facts.missing_header_removed_in is None


@pytest.mark.parametrize(
    "text",
    [
        "  what():  Error: compute_ctc_loss, stat = label length >639 is not supported\n",
        "RuntimeError: grid_sampler only supports up to 3 dimensions\n",
        "RuntimeError: vmap only supports tensors of dimensionality up to 64\n",
    ],
)
def test_a_stated_input_limit_is_the_caller_s(text: str) -> None:
    assert _decided(text) == ("runtime-assumption", "concept-stated-contract-broken")


@pytest.mark.parametrize(
    "text",
    [
        # a toolchain's own version check (nvcc's host_config.h)
        "#error -- unsupported GNU version! gcc versions later than 12 are not supported!\n",
        # a release, not an input's size
        "RuntimeError: CUDA > 12 is not supported\n",
        # a width in bits is a dtype's, not a size
        "RuntimeError: integer and floating point types larger than 64 bits are not supported\n",
    ],
)
def test_a_release_or_a_width_is_not_a_stated_input_limit(text: str) -> None:
    report = classify_text(text)
    assert report.diagnosis is None or report.diagnosis.rule != "concept-stated-contract-broken"


@pytest.mark.parametrize(
    "text",
    [
        corpus_log("holdout38", "h38b-nvidia-docker-uvm-tools-missing-after-reboot"),
        'docker: Error response from daemon: linux runtime spec devices: error gathering device information while adding custom device "/dev/nvidia0": lstat /dev/nvidia0: no such file or directory.\n',
    ],
)
def test_a_missing_nvidia_device_node_is_the_host_s(text: str) -> None:
    category, rule = _decided(text)
    assert (category, rule) == ("environment", "container-nvidia-device-node-missing")


def test_another_vendor_s_missing_device_node_is_not_nvidia_s() -> None:
    text = 'docker: Error response from daemon: error gathering device information while adding custom device "/dev/dri": no such file or directory.\n'
    report = classify_text(text)
    assert report.diagnosis is None or report.diagnosis.rule != "container-nvidia-device-node-missing"
