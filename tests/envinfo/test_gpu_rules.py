"""The rules in rules/gpu/ on recorded NVML snapshots combined with real failure logs.

Each snapshot is built by the collector from a recording in tests/fixtures/nvml/ (no-library.json
captured on this machine; the others CONSTRUCTED from NVML's documented fields, see their
.source.yaml), with a CONSTRUCTED software part (the shape stack.collect() reports) so the outcome
does not depend on what this machine has installed.  The failure logs are real: fixture files
(each with its .source.yaml) and corpus/public/real-dev.yaml cases, named where they are used.
Pairing a log with a snapshot is the test's doing; the pair says "this failure on that machine".
"""

from __future__ import annotations

import copy
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from constructed import software  # tests/envinfo/constructed.py (pytest puts this folder on sys.path)

import diagnose
from diagnose.cli import main as kdiag
from diagnose.envinfo.nvml_replay import ReplayNvml
from diagnose.envinfo.snapshot import gpu_facts, snapshot

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
NVML = FIX / "nvml"
CASES = ROOT / "corpus" / "public" / "real-dev.yaml"


# --- inputs ------------------------------------------------------------------------------


def fixture_log(rel: str) -> str:
    path = FIX / rel
    assert path.with_name(path.stem + ".source.yaml").exists(), f"{rel} has no .source.yaml"
    return path.read_text()


@cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in yaml.safe_load(CASES.read_text())}


def case_log(case_id: str) -> str:
    return str(_cases()[case_id]["log"])


def recording(fixture: str, device_changes: dict[str, Any] | None = None) -> ReplayNvml:
    data = json.loads((NVML / f"{fixture}.json").read_text())
    if device_changes:
        data = copy.deepcopy(data)
        data["devices"][0].update(device_changes)
    return ReplayNvml.from_dict(data, origin=f"{fixture}.json" + (" (varied in the test)" if device_changes else ""))


def snap(
    name: str,
    *,
    env: dict[str, str] | None = None,
    device: dict[str, Any] | None = None,
    xids: tuple[int, ...] = (),
    **soft: Any,
) -> dict[str, Any]:
    s = snapshot(nvml=recording(name, device), env=env or {}, software=software(**soft))
    if xids:  # what a run's XidWatch adds to the snapshot's NVML part
        s["nvml"]["xid_events"] = [{"device": 0, "xid": x} for x in xids]
    return s


NO_DRIVER: dict[str, Any] = {"libcuda": False, "torch_cuda": None, "cudart": 13000, "nvcc": "13.0"}  # like this machine

# logs, each real (origin in the comment or the fixture's .source.yaml)
IMA = "case:megablocks-padded-copy-int32-overflow"  # databricks/megablocks#185: bare illegal address
OOM_HELD = "oom/torch_old_reserved.log"  # 505 MiB allocated, 12.5 MiB free of 11.17 GiB
OOM_OWN = "oom/torch21_capacty_typo.log"  # FoundationVision/GenerateU#10: the process holds 14.5 GiB itself
CUPY_NODRIVER = "cuda_errors/cupy_nodriver.log"  # captured here: cudaErrorInsufficientDriver
TRITON_NODRIVER = "triton/no-active-driver.log"  # captured here: 0 active drivers
TORCH_CPU = "environment/captured-torch-cpu-build.txt"  # captured here: Torch not compiled with CUDA enabled
NVML_CHAIN = "pytraceback/nvml_chain.log"  # captured here: NVMLError_LibraryNotFound
INTERP_ASSERT = "triton/interp-static-assert.log"  # captured here under TRITON_INTERPRET=1


def log(ref: str) -> str:
    return case_log(ref.split(":", 1)[1]) if ref.startswith("case:") else fixture_log(ref)


def classify(ref: str, s: dict[str, Any] | None) -> diagnose.Report:
    return diagnose.classify_log(log(ref), env=s)


# --- each snapshot with the failure it explains ------------------------------------------------

REPLAYS = [
    # (test id, snapshot builder, log, category, failure mode, rule)
    (
        "ecc-a100+illegal-address",
        lambda: snap("ecc-uncorrectable-a100", torch_cuda="12.4", cudart=12040, nvcc="12.4"),
        IMA,
        "environment",
        "gpu-hardware-fault",
        "gpu-ecc-fault-with-cuda-error",
    ),
    (
        "ecc-a100+illegal-address(fla)",
        lambda: snap("ecc-uncorrectable-a100", torch_cuda="12.4", cudart=12040, nvcc="12.4"),
        "case:fla-rwkv7-ima-fixed-in-kernel",
        "environment",
        "gpu-hardware-fault",
        "gpu-ecc-fault-with-cuda-error",
    ),
    (
        "healthy-h100+xid79+illegal-address",
        lambda: snap("healthy-h100", xids=(79,)),
        IMA,
        "environment",
        "gpu-hardware-fault",
        "gpu-hardware-xid-during-run",
    ),
    (
        "memory-held-a10g+oom",
        lambda: snap("memory-held-a10g", torch_cuda="12.1", cudart=12010, nvcc="12.1"),
        OOM_HELD,
        "environment",
        "oom-other-process",
        None,  # rules/oom/oom-other-process-nvml weighs the same facts; either rule is right
    ),
    ("mig-a100+oom-on-slice", lambda: snap("mig-a100"), OOM_OWN, "environment", "mig-config", "gpu-mig-slice-limits"),
    (
        "mig-no-instances+no-active-driver",
        lambda: snap("mig-a100", device={"mig_devices": []}),
        TRITON_NODRIVER,
        "environment",
        "mig-config",
        "gpu-mig-no-instances",
    ),
    (
        "driver-old-l4(13.0 stack)+cupy-insufficient-driver",
        lambda: snap("driver-old-l4", torch_cuda="13.0", cudart=13000, nvcc="13.0"),
        CUPY_NODRIVER,
        "environment",
        "driver-too-old",
        "gpu-driver-older-than-runtime",
    ),
    (
        "driver-old-l4+remode",
        lambda: snap("driver-old-l4", torch_cuda="13.0", cudart=13000, nvcc="13.0"),
        "case:remode-driver-insufficient-340",
        "environment",
        "driver-too-old",
        "gpu-driver-older-than-runtime",
    ),
    (
        "no-library(no libcuda)+cupy-insufficient-driver",
        lambda: snap("no-library", **NO_DRIVER),
        CUPY_NODRIVER,
        "environment",
        "no-gpu-visible",
        "gpu-no-gpu-no-driver",
    ),
    (
        "no-library(no libcuda)+triton-no-active-driver",
        lambda: snap("no-library", **NO_DRIVER),
        TRITON_NODRIVER,
        "environment",
        "no-gpu-visible",
        "gpu-no-gpu-no-driver",
    ),
    (
        "no-library(no libcuda)+torch-cpu-build",
        lambda: snap("no-library", **NO_DRIVER),
        TORCH_CPU,
        "environment",
        "no-gpu-visible",
        "gpu-no-gpu-no-driver",
    ),
    (
        "no-library(libcuda there)+nvml-library-not-found",
        lambda: snap("no-library"),
        NVML_CHAIN,
        "environment",
        "library-missing",
        "gpu-nvml-library-missing",
    ),
    (
        "healthy-h100(cpu torch)+torch-cpu-build",
        lambda: snap("healthy-h100", torch_cuda=None),
        TORCH_CPU,
        "environment",
        "library-missing",
        "gpu-torch-cpu-build-on-gpu-machine",
    ),
    (
        "healthy-h100(CUDA_VISIBLE_DEVICES='')+no-active-driver",
        lambda: snap("healthy-h100", env={"CUDA_VISIBLE_DEVICES": ""}),
        TRITON_NODRIVER,
        "environment",
        "no-gpu-visible",
        "gpu-cuda-visible-devices-empty",
    ),
    (
        "healthy-h100(CUDA_VISIBLE_DEVICES=3)+no-active-driver",
        lambda: snap("healthy-h100", env={"CUDA_VISIBLE_DEVICES": "3"}),
        TRITON_NODRIVER,
        "environment",
        "no-gpu-visible",
        "gpu-cuda-visible-devices-invalid",
    ),
    (
        "healthy-h100(exclusive)+devices-busy",
        lambda: snap("healthy-h100", device={"compute_mode": 3}),
        "environment/issue-digits-2005-busy-exclusive.txt",
        "environment",
        "exclusive-compute-mode",
        "gpu-exclusive-compute-mode",
    ),
    (
        "rtx5090(torch without sm_120)+no-kernel-image",
        lambda: snap(
            "healthy-h100",
            device={"name": "NVIDIA GeForce RTX 5090", "compute_capability": [12, 0]},
            torch_cuda="12.4",
            arch_list=["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
        ),
        "environment/issue-sd-webui-nix-9-sm120-no-kernel-image.txt",
        "environment",
        "no-kernel-image-for-arch",
        "gpu-torch-arch-missing",
    ),
    (
        "healthy-h100(triton skew)+attrsdescriptor",
        lambda: snap("healthy-h100", triton="3.3.0", pin="triton==3.1.0"),
        "case:wan2gp-attrsdescriptor-triton-mismatch",
        "environment",
        "version-skew",
        "gpu-torch-triton-version-skew",
    ),
]


@pytest.mark.parametrize(
    ("build", "ref", "category", "mode", "rule"), [r[1:] for r in REPLAYS], ids=[r[0] for r in REPLAYS]
)
def test_snapshot_with_failure(build: Any, ref: str, category: str, mode: str, rule: str | None) -> None:
    s = build()
    report = classify(ref, s)
    assert (report.category, report.failure_mode) == (category, mode), report.to_dict()
    if rule is not None:
        assert report.diagnosis is not None and report.diagnosis.rule == rule
    assert report.evidence is not None and report.evidence.gpu == gpu_facts(s)


# --- what the snapshot must NOT change ---------------------------------------------------------


def test_healthy_gpu_leaves_an_illegal_address_undecided() -> None:
    """The snapshot says nothing is wrong with the machine: the text-only reading stands."""
    with_env = classify(IMA, snap("healthy-h100"))
    without = classify(IMA, None)
    assert with_env.category != "environment"
    assert (with_env.category, with_env.failure_mode) == (without.category, without.failure_mode)
    # the snapshot adds no environment finding: any there is the message's own candidate, found without it too
    env_with = {f.rule for f in with_env.diagnosis.findings if f.category == "environment"}  # type: ignore[union-attr]
    env_without = {f.rule for f in without.diagnosis.findings if f.category == "environment"}  # type: ignore[union-attr]
    assert env_with <= env_without
    assert all(f.confidence < 0.5 for f in with_env.diagnosis.findings if f.category == "environment")  # type: ignore[union-attr]


def test_ecc_snapshot_does_not_claim_an_oom_or_a_rejected_launch() -> None:
    s = snap("ecc-uncorrectable-a100", torch_cuda="12.4", cudart=12040, nvcc="12.4")
    assert classify(OOM_OWN, s).failure_mode != "gpu-hardware-fault"
    # a launch the runtime refuses before it runs (BVLC/caffe#1793) is no memory fault
    assert classify("case:caffe-c2075-invalid-config-batch", s).failure_mode != "gpu-hardware-fault"


def test_own_memory_is_not_another_process() -> None:
    s = snap("memory-held-a10g", torch_cuda="12.1", cudart=12010, nvcc="12.1")
    assert classify(OOM_HELD, s).failure_mode == "oom-other-process"
    # the holder is the target itself (kdiag run passes its pids): no longer someone else's memory
    assert "memory-held-by-other-process" not in gpu_facts(s, exclude_pids=[4242]).problems
    assert classify(OOM_OWN, snap("healthy-h100")).failure_mode != "oom-other-process"


def test_minor_version_driver_gap_alone_is_no_failure() -> None:
    """12.8 software on a 12.2 driver runs (minor-version compatibility): an unrelated failure stays unrelated."""
    s = snap("driver-old-l4")
    assert "driver-older-than-runtime" in gpu_facts(s).problems
    assert classify(IMA, s).failure_mode != "driver-too-old"


def test_captured_no_library_snapshot_alone_yields_no_finding() -> None:
    """This machine's real outcome (captured recording, this machine's own software stack), no failure."""
    s = snapshot(nvml=recording("no-library"), env={})
    assert {"no-nvml", "no-gpu-visible"} <= set(gpu_facts(s).problems)
    report = diagnose.classify_log("", env=s)
    assert report.diagnosis is not None and report.diagnosis.findings == ()
    assert (report.status, report.category) == ("no-failure", "no-failure")  # a snapshot alone: nothing failed


def test_interpreter_run_without_gpu_is_not_blamed_on_the_machine() -> None:
    """A Triton kernel failing under TRITON_INTERPRET=1 on this GPU-less machine: the kernel's failure."""
    s = snapshot(nvml=recording("no-library"), env={"TRITON_INTERPRET": "1"})
    with_env = classify(INTERP_ASSERT, s)
    without = classify(INTERP_ASSERT, None)
    assert with_env.failure_mode != "no-gpu-visible" and with_env.category != "environment"
    assert (with_env.category, with_env.failure_mode) == (without.category, without.failure_mode)


def test_prohibited_compute_mode() -> None:
    # the first line of NVIDIA/DIGITS#2005 (tests/fixtures/environment/issue-digits-2005-busy-exclusive.txt),
    # without that nvidia-smi table, on a GPU the snapshot shows in Prohibited mode
    text = "Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy or unavailable\n"
    report = diagnose.classify_log(text, env=snap("healthy-h100", device={"compute_mode": 2}))
    assert (report.category, report.failure_mode) == ("environment", "exclusive-compute-mode")
    assert report.diagnosis is not None and report.diagnosis.rule == "gpu-compute-mode-prohibited"


def test_no_gpu_rule_needs_the_missing_driver() -> None:
    """Triton's '0 active drivers' on a machine whose GPU is fine but torch is a CPU build."""
    report = classify(TRITON_NODRIVER, snap("healthy-h100", torch_cuda=None))
    assert (report.category, report.failure_mode) == ("environment", "library-missing")


# --- kdiag classify reads the env field of a record --------------------------------------------


def test_classify_jsonl_record_uses_its_env(tmp_path: Path) -> None:
    env = snap("no-library", **NO_DRIVER)
    records = tmp_path / "batch.jsonl"
    lines = [
        {"id": "with-env", "log": fixture_log(CUPY_NODRIVER), "env": env},
        {"id": "without-env", "log": fixture_log(CUPY_NODRIVER)},
        {"id": "env-only", "env": env},
    ]
    records.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = io.StringIO()
    rc = kdiag(["classify", str(records), "--format", "jsonl", "--progress", "never"], out=out, err=io.StringIO())
    assert rc in (0, 1), out.getvalue()
    got = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert got["with-env"]["rule"] == "gpu-no-gpu-no-driver"
    assert (got["with-env"]["category"], got["with-env"]["failure_mode"]) == ("environment", "no-gpu-visible")
    assert got["without-env"]["failure_mode"] == "driver-too-old"  # the text alone reads it as an old driver
    assert got["env-only"]["rule"] is None and got["env-only"]["status"] == "no-failure"
