"""What an NVIDIA H200 printed for the corpus programs (tests/fixtures/gpu-h200, written by
scripts/import-gpu-capture from a scripts/gpu-capture archive): the fixtures say where they came from,
name no machine, and read as an expert would read them, abstaining where the text alone cannot decide."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from diagnose.collectors import collect
from diagnose.matcher import Matcher
from diagnose.rules import load_rules

ROOT = Path(__file__).resolve().parent.parent
H200 = ROOT / "tests" / "fixtures" / "gpu-h200"
CAPTURE = yaml.safe_load((H200 / "capture.yaml").read_text())
MACHINE_PATH = re.compile(r"(?<![\w<>])/(?:tmp|work|root|home|opt)/")


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(load_rules())


def test_the_capture_says_on_what_and_how() -> None:
    on = CAPTURE["captured_on"]
    assert (on["gpu"], on["compute_capability"], on["driver"]) == ("NVIDIA H200", "9.0", "580.159.04")
    assert on["nvcc"] and on["compute_sanitizer"] and on["packages"]["torch"] and on["packages"]["triton"]
    assert "scripts/gpu-capture" in CAPTURE["how"] and "kdiag commit" in CAPTURE["how"]
    labelled = {}
    for folder in ("gpu", "kernels"):
        labels = yaml.safe_load((ROOT / "corpus" / folder / "labels.yaml").read_text())
        labelled.update({f"{folder}/{name}": label for name, label in labels.items()})
    for case in CAPTURE["cases"]:
        assert case["case"] in labelled, case["case"]
        want = labelled[case["case"]]
        # the label it was captured under: today's, or the one a `relabelled:` note says it was
        was = want.get("relabelled", "")
        assert case["label"]["category"] == want["category"] or was.startswith(f"was {case['label']['category']}"), (
            case["case"]
        )
        assert case["rungs"] and case["kdiag"]["verdict"] in ("pass", "fail", "assumption", "no-result")


def test_every_fixture_is_a_rung_output_and_names_no_machine() -> None:
    files = [p for p in H200.rglob("*") if p.is_file() and p.parent != H200]
    assert len(files) >= 40
    for p in files:
        assert re.fullmatch(r"\d+-[a-z-]+\.(stdout|stderr|sanitizer\.log)", p.name), p
        case = next(c for c in CAPTURE["cases"] if Path(c["case"]).stem == p.parent.name)
        assert p.name.split(".")[0].split("-", 1)[1] in [r["name"] for r in case["rungs"]], p
        assert not MACHINE_PATH.search(p.read_text(errors="replace")), p


def _rung_text(case: str, rung: str) -> str:
    """A rung's output as kdiag run reads it: stderr, stdout, then the sanitizer's log (diagnose/run/children.py)."""
    parts = [(H200 / case / f"{rung}.{name}") for name in ("stderr", "stdout", "sanitizer.log")]
    return "\n".join(p.read_text().rstrip("\n") for p in parts if p.is_file()) + "\n"


@pytest.mark.parametrize("case", ["block_too_large", "dynamic_smem_over_default"])
@pytest.mark.parametrize("whole_rung", [False, True])
def test_a_refused_launch_under_the_sanitizer_names_both_owners_and_answers_neither(
    case: str, whole_rung: bool, matcher: Matcher
) -> None:
    # "invalid argument on CUDA API call to cudaLaunchKernel": 2048 threads per block and 100 KiB of dynamic
    # shared memory without the opt-in gave the same record; the launch's numbers against the device decide.
    # In the whole rung the program's own "CUDA error ... cudaGetLastError()" comes first: the call the
    # sanitizer names is still the launch
    log = (H200 / case / "4-memcheck.sanitizer.log").read_text()
    text = _rung_text(case, "4-memcheck") if whole_rung else log
    diag = matcher.diagnose(collect(text, exit_code=86 if whole_rung else None))
    assert diag.category == "unknown" and diag.abstained
    owners = {f.category for f in diag.alternatives}
    assert {"kernel-logic", "runtime-assumption"} <= owners
    assert not any(f.rule == "sanitizer-api-error" for f in diag.findings)


def test_an_address_outside_every_space_is_a_memory_error_whose_owner_memcheck_decides(matcher: Matcher) -> None:
    # cudaErrorInvalidAddressSpace (717), what the H200 printed for an index 8 GiB past its buffer before
    # launches were made synchronous (then: cudaErrorIllegalAddress)
    text = (H200 / "illegal_address" / "2-plain.stderr").read_text()
    assert "code=717(cudaErrorInvalidAddressSpace)" in text
    diag = matcher.diagnose(collect(text, exit_code=1))
    assert diag.category == "unknown" and diag.alternatives[0].category == "kernel-logic"
    assert "memcheck" in (diag.alternatives[0].caveats or "")


@pytest.mark.parametrize(
    ("fixture", "category", "mode"),
    [
        ("illegal_address/4-memcheck.sanitizer.log", "kernel-logic", None),
        ("illegal_address/7-initcheck.sanitizer.log", "kernel-logic", "uninitialized-read"),
        ("device_assert/4-memcheck.sanitizer.log", "kernel-logic", "device-assert"),
        # 256 KiB, over every GPU's 227 KiB: the message cannot tell a config wrong everywhere (the kernel's; under
        # `kdiag run` the size is one the kernel declares, triton-run-smem-over-every-gpu) from an input past what the
        # kernel supports (the caller's): a candidate
        ("smem_hungry/1-plain.stderr", "unknown", None),
        ("dot_8x8/1-plain.stderr", "kernel-logic", "language-misuse"),
    ],
)
def test_what_the_h200_reported_decides_where_it_should(
    fixture: str, category: str, mode: str | None, matcher: Matcher
) -> None:
    diag = matcher.diagnose(collect((H200 / fixture).read_text(), exit_code=1))
    assert diag.category == category, (diag.rule, diag.confidence)
    assert mode is None or diag.failure_mode == mode


# ---- the full ladder's sweep of passing runs, on the same H200 (tests/fixtures/gpu-h200-sweep) ----

SWEEP = ROOT / "tests" / "fixtures" / "gpu-h200-sweep"
SWEPT = yaml.safe_load((SWEEP / "capture.yaml").read_text())


def _swept(case: str) -> dict:
    return next(c for c in SWEPT["cases"] if Path(c["case"]).stem == case)


def test_the_sweep_caught_what_the_plain_runs_passed() -> None:
    # an out-of-bounds access past a 4,000-byte buffer and a barrier only half the block reaches: both
    # programs passed their plain run on the H200, and memcheck / racecheck named the bug
    for case, tool, mode in (
        ("oob_write_tail", "memcheck", "missing-mask-tail"),
        ("divergent_barrier", "racecheck", None),
    ):
        c = _swept(case)
        assert [r["name"] for r in c["rungs"]][:2] in (["compile", "plain"],) and c["rungs"][1]["verdict"] == "pass"
        assert c["rungs"][-1]["name"] == tool and c["rungs"][-1]["exit_code"] == 86  # the sanitizer's error exit
        assert (c["kdiag"]["verdict"], c["kdiag"]["category"]) == ("fail", "kernel-logic")
        assert mode is None or c["kdiag"]["failure_mode"] == mode
    saxpy = _swept("saxpy_ok")
    assert [r["name"] for r in saxpy["rungs"]] == [
        "compile",
        "plain",
        "memcheck",
        "racecheck",
        "initcheck",
        "synccheck",
    ]
    assert saxpy["kdiag"]["verdict"] == "pass" and all(r["verdict"] == "pass" for r in saxpy["rungs"])


def test_concurrent_sanitizers_crossed_their_reports() -> None:
    # the evidence behind the sanitizer lock (diagnose/run/climb.py): three captures ran side by side, and
    # the memcheck log of a Triton kernel (missing_mask_tail.py) holds the report of another program, the
    # misaligned float4 load of corpus/gpu/misaligned_vector_load.cu that ran at the same time
    text = (SWEEP / "missing_mask_tail" / "2-memcheck.sanitizer.log").read_text()
    assert "misaligned_vector_load.cu:7" in text and "missing_mask_tail" not in text
    assert _swept("missing_mask_tail")["rungs"][-1]["timed_out"]
    # and two clean programs sat under memcheck until the time limit, their logs holding the banner only
    for case in ("race_shared", "uninit_read"):
        assert (SWEEP / case / "3-memcheck.sanitizer.log").read_text().strip() == "========= COMPUTE-SANITIZER"
        assert _swept(case)["rungs"][-1]["timed_out"] and _swept(case)["kdiag"]["verdict"] == "pass"


def test_the_sweep_fixtures_are_rung_outputs_and_name_no_machine() -> None:
    files = [p for p in SWEEP.rglob("*") if p.is_file() and p.parent != SWEEP]
    assert len(files) >= 20
    for p in files:
        assert re.fullmatch(r"\d+-[a-z-]+\.(stdout|stderr|sanitizer\.log)", p.name), p
        assert p.name.split(".")[0].split("-", 1)[1] in [r["name"] for r in _swept(p.parent.name)["rungs"]], p
        assert not MACHINE_PATH.search(p.read_text(errors="replace")), p
