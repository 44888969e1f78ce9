"""The CUDA toolchain and library families of the catalogue on real text: captured tool output
(tests/fixtures/catalogue-cuda/, made by scripts/capture-catalogue-cuda-samples; the runtime's own
error strings in tests/fixtures/environment/) and logs from public reports in the corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from diagnose.catalogue import default_catalogue
from diagnose.classify import classify_record
from diagnose.inputs import InputRecord, load_yaml
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CAT = default_catalogue()
MATCHER = Matcher(default_rules())
FIRST_SIGHT = json.loads((ROOT / "diagnose" / "data" / "first_sight.json").read_text())["rules"]
TOOLS = ("cuda-runtime", "nvml", "ptxas", "nvcc", "nvrtc", "nvlink", "cublas", "cudnn", "nccl", "cuda-libs")


def families(text: str) -> list[str]:
    return [h.family.id for h in CAT.scan(text)]


def diagnose(text: str) -> tuple[str, str | None]:
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    d = report.diagnosis
    assert d is not None
    return d.category, d.rule


def _captures() -> list[tuple[str, str, str]]:
    out = []
    for meta in sorted((FIXTURES / "catalogue-cuda").glob("*.source.yaml")):
        captured = yaml.safe_load(meta.read_text())["captured"]
        log = meta.with_name(meta.name.replace(".source.yaml", ".log")).read_text()
        out.append((meta.name.removesuffix(".source.yaml"), captured["family"], log))
    return out


CAPTURES = _captures()


def test_every_cuda_tool_has_a_catalogue() -> None:
    tools = {f.tool for f in CAT.families}
    assert set(TOOLS) <= tools
    assert len(CAPTURES) >= 10


@pytest.mark.parametrize(("name", "family", "log"), CAPTURES, ids=[c[0] for c in CAPTURES])
def test_captured_tool_output_maps_to_its_family(name: str, family: str, log: str) -> None:
    assert family in families(log), name
    fam = CAT.get(family)
    assert fam is not None
    category, _ = diagnose(log)
    if fam.decided and category == "unknown":
        # the calibration measured the family wrong on logs it had not seen (diagnose/data/first_sight.json) and
        # it abstains: its own category must still lead the candidates
        report = classify_record(InputRecord(id="t", text=log), MATCHER).to_dict()
        assert report["alternatives"] and report["alternatives"][0]["category"] == fam.category, name
        assert (FIRST_SIGHT.get(family) or {}).get("right", 0) < (FIRST_SIGHT.get(family) or {}).get("cases", 0), name
    elif fam.decided:
        assert category == fam.category, name
    else:  # a family whose message has several owners abstains on the message alone, listing them
        assert fam.candidates and category == "unknown", name


# cudaGetErrorName/cudaGetErrorString of libcudart.so.13, captured here (one code per line)
RUNTIME_CODES = {
    35: ("cudart-driver-older-than-runtime", "environment"),
    100: ("cudart-no-capable-device", "environment"),
    209: ("cudart-no-kernel-image-for-device", "environment"),
    214: ("cudart-ecc-uncorrectable", "environment"),
    222: ("cudart-ptx-from-newer-toolchain", "environment"),
    34: ("cudart-stub-driver-library", "environment"),
    46: ("cudart-device-busy-or-exclusive", None),  # a concept rule decides it when no kernel fault came before
    218: ("cudart-ptx-jit-failed", None),  # facts only: the JIT log decides
    710: ("cudart-device-side-assert", None),
    999: ("cudart-unknown-error", None),
}


@pytest.mark.parametrize("code", sorted(RUNTIME_CODES))
def test_runtime_error_strings_map_to_their_family(code: int) -> None:
    lines = (FIXTURES / "environment" / "captured-cudart13-error-strings.txt").read_text().splitlines()
    line = next(ln for ln in lines if ln.split(" ", 1)[0] == str(code))
    family, category = RUNTIME_CODES[code]
    assert family in families(line)
    fam = CAT.get(family)
    assert fam is not None and fam.category == category
    # the message alone, as a framework wraps it, without the name
    message = line.split(" | ", 1)[1]
    if family not in ("cudart-unknown-error", "cudart-device-side-assert"):  # generic texts match by name only
        assert family in families(f"RuntimeError: CUDA error: {message}")


def _corpus() -> dict[str, dict]:
    cases = {}
    for path in sorted((ROOT / "corpus").rglob("*.yaml")):
        data = load_yaml(path.read_text())
        for case in data if isinstance(data, list) else []:
            if isinstance(case, dict) and case.get("id"):
                cases[case["id"]] = case
    return cases


CORPUS = _corpus()

# real logs (public reports and captures in the corpus) → the family that must recognise them
PUBLIC = {
    "environment-captured-cupy-insufficient-driver": "cudart-driver-older-than-runtime",
    "cuda-memtest-ptx-newer-than-driver": "cudart-ptx-from-newer-toolchain",
    "mfc-ci-bad-l40s-node-ecc": "cudart-ecc-uncorrectable",
    "deepfacelab-4090-ecc-hardware": "cudart-ecc-uncorrectable",
    "environment-issue-digits-2005-busy-exclusive": "cudart-device-busy-or-exclusive",
    "tensorrtpro-yolo-no-kernel-image-gencode": "cudart-no-kernel-image-for-device",
    "environment-issue-shine-cluster-30-nvml-mismatch": "nvml-driver-library-version-mismatch",
    "environment-issue-self-hosted-runners-40-smi-failed": "nvml-cannot-communicate-with-driver",
    "environment-captured-nvml-no-library": "nvml-library-not-found",
    "llamacpp-fattn-tile-static-smem-regression": "ptxas-too-much-shared-data",
    "gpufit-cuda11-compute30-dropped": "nvcc-unsupported-gpu-arch",
    "cuhe-base-cu-device-from-host-device": "nvcc-execution-space-violation",
    "cuda-memtest-gcc-too-new": "nvcc-host-compiler-version-unsupported",
}


@pytest.mark.parametrize("case_id", sorted(PUBLIC))
def test_real_logs_map_to_their_family_and_category(case_id: str) -> None:
    case = CORPUS[case_id]
    text = "\n".join(str(case.get(k) or "") for k in ("log", "stdout", "stderr"))
    family = PUBLIC[case_id]
    assert family in families(text)
    fam = CAT.get(family)
    # a family that decides alone has the label's category; one that leaves it to a concept rule lists it first
    assert fam is not None and (fam.category or fam.candidates[0].category) == case["category"]
    category, _ = diagnose(text)
    assert category == case["category"]


@pytest.mark.parametrize(
    "case_id",
    ["paddle-softmax-int32-index-overflow", "softpool-noncontiguous-grad-ima", "hais-uninitialized-cuda-buffer-ima"],
)
def test_context_dependent_faults_are_facts_only(case_id: str) -> None:
    """An illegal address is recognised, but its family decides nothing: the hand rules weigh the context."""
    case = CORPUS[case_id]
    text = str(case.get("log") or "")
    assert "cudart-illegal-address" in families(text)
    fam = CAT.get("cudart-illegal-address")
    assert fam is not None and not fam.decided
    _, rule = diagnose(text)
    assert rule != "cudart-illegal-address"


def test_driver_api_and_runtime_names_share_a_family() -> None:
    for text in ("CUDA_ERROR_NO_BINARY_FOR_GPU", "cudaErrorNoKernelImageForDevice"):
        assert families(f"error: {text}") == ["cudart-no-kernel-image-for-device"]
    assert families("cuDNN error: CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH") == ["cudnn-arch-mismatch"]


def test_warnings_never_decide_alone() -> None:
    """Deprecation and fallback notices are facts only: no rule fires on them."""
    for fam in CAT.families:
        if fam.tool in TOOLS and fam.severity == "warning":
            assert all(r.id != fam.id for r in default_rules())
            for msg in fam.messages:
                if msg.sample:
                    assert diagnose(msg.sample)[0] == "unknown"


@pytest.mark.parametrize("name", ["healthy-h100.json", "mig-a100.json"])
def test_nvml_field_errors_in_a_healthy_snapshot_decide_nothing(name: str) -> None:
    """kdiag's own environment snapshots record per-field NVML errors (NotSupported, NoPermission) routinely."""
    text = (FIXTURES / "nvml" / name).read_text()
    assert {"nvml-query-not-supported"} <= set(families(text))
    report = classify_record(InputRecord(id=name, text=text), MATCHER)
    assert report.diagnosis is not None
    assert not [f for f in report.diagnosis.findings if f.rule.startswith("nvml-")]


# "device not ready" (code 600) raised as an error, in the wordings of public reports
NOT_READY = [
    # LaurentMazare/tch-rs#225 (libtorch's old THC check)
    "THCudaCheck FAIL file=../aten/src/THC/THCCachingHostAllocator.cpp line=278 error=34 : device not ready",
    # noonghunna/club-3090#60 (PyTorch's driver-API check, on a Windows host)
    "RuntimeError: CUDA driver error: device not ready",
    # dusty-nv/jetson-inference#1821 (an event timed before it completed)
    "cudaEventElapsedTime(&cuda_time, mEventsGPU[evt], mEventsGPU[evt+1]) [cuda] device not ready (error 600) (hex 0x258)",
]


@pytest.mark.parametrize("text", NOT_READY)
def test_not_ready_raised_as_an_error_abstains_with_the_watchdog_and_the_query(text: str) -> None:
    assert "cudart-not-ready-raised-as-error" in families(text)
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    d = report.diagnosis
    assert d is not None and d.category == "unknown"
    owners = {a.category for a in d.alternatives}
    assert {"environment", "kernel-logic"} <= owners


def test_not_ready_from_a_query_that_is_not_an_error_is_no_failure() -> None:
    # a poll loop that prints the status it got while the work still runs
    text = "cudaStreamQuery(stream) = cudaErrorNotReady, still running; polling again"
    assert "cudart-not-ready-raised-as-error" not in families(text)
