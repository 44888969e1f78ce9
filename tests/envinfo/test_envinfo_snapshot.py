"""Recorded NVML snapshots replayed through the collector give the right problem tags.

The NVML recordings are in tests/fixtures/nvml/ (each with a .source.yaml): no-library.json was
captured on this machine; the others are CONSTRUCTED from NVML's documented fields.  The software
parts below are CONSTRUCTED too (a stack as stack.collect() would report it), so the tests do not
depend on what this machine has installed.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from constructed import software  # tests/envinfo/constructed.py (pytest puts this folder on sys.path)

from diagnose.envinfo.findings import arch_runs, findings, visible
from diagnose.envinfo.nvml import XidWatch
from diagnose.envinfo.nvml_replay import RecordingNvml, ReplayNvml
from diagnose.envinfo.snapshot import gpu_facts, snapshot
from diagnose.evidence import Evidence

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "nvml"


def replay(name: str) -> ReplayNvml:
    return ReplayNvml.from_file(FIX / f"{name}.json")


def snap(name: str, *, env: dict[str, str] | None = None, **soft: Any) -> dict[str, Any]:
    return snapshot(nvml=replay(name), env=env or {}, software=software(**soft))


def tags(s: dict[str, Any], **kw: Any) -> set[str]:
    return set(gpu_facts(s, **kw).problems)


# --- each recording gives its finding ---------------------------------------------------------


def test_healthy_gpu_has_no_problems() -> None:
    s = snap("healthy-h100")
    f = gpu_facts(s)
    assert f.problems == ()
    assert f.nvml_ok and f.name == "NVIDIA H100 80GB HBM3" and f.arch == "sm_90"
    assert f.cuda_driver_version == 12080 and f.driver_version == "570.124.06"
    assert f.ecc_enabled and f.ecc_uncorrectable_volatile == 0
    assert f.compute_mode == "Default" and f.throttle_reasons == ("GpuIdle",)
    assert f.smem_optin_bytes == 227 * 1024  # from diagnose/data/gpus.yaml


def test_a_real_h200_recording_is_healthy() -> None:
    # captured on an NVIDIA H200 by `kdiag env --record-nvml` (scripts/gpu-capture; tests/fixtures/gpu-h200):
    # the first recording from a real GPU, read back as the constructed ones are
    s = snapshot(
        nvml=ReplayNvml.from_file(FIX.parent / "gpu-h200" / "nvml-recording.json"), env={}, software=software()
    )
    f = gpu_facts(s)
    assert f.problems == () and findings(s) == []
    assert f.nvml_ok and f.name == "NVIDIA H200" and f.arch == "sm_90"
    assert f.driver_version == "580.159.04" and f.cuda_driver_version == 13000
    assert f.ecc_enabled and f.ecc_uncorrectable_volatile == 0 and f.compute_mode == "Default"
    assert f.smem_optin_bytes == 227 * 1024  # the H200 is a Hopper part: diagnose/data/gpus.yaml


def test_ecc_uncorrectable() -> None:
    s = snap("ecc-uncorrectable-a100", torch_cuda="12.4", cudart=12040, nvcc="12.4")
    f = gpu_facts(s)
    assert {"ecc-uncorrectable", "row-remap-pending"} <= set(f.problems)
    assert "row-remap-failure" not in f.problems
    assert f.ecc_uncorrectable_volatile == 2 and f.ecc_uncorrectable_aggregate == 2 and f.row_remap_pending


def test_memory_held_by_another_process() -> None:
    s = snap("memory-held-a10g", torch_cuda="12.1", cudart=12010, nvcc="12.1")
    f = gpu_facts(s)
    assert f.problems == ("memory-held-by-other-process",)
    assert f.other_process_count == 1 and f.other_process_bytes == float(21 * 2**30 + 512 * 2**20)
    detail = next(x.detail for x in findings(s) if x.tag == "memory-held-by-other-process")
    assert "pid 4242 python3" in detail
    # the same process, when it is the target itself, is no finding
    assert "memory-held-by-other-process" not in tags(s, exclude_pids=[4242])


def test_mig_slice() -> None:
    s = snap("mig-a100")
    f = gpu_facts(s)
    assert f.problems == ("mig-enabled",)
    assert f.mig_enabled and f.mig_instances == 1
    # NVML refused the process list in MIG mode: the field says why instead of guessing
    procs = s["nvml"]["devices"][0]["processes"]
    assert procs["value"] is None and procs["error"] == "NVMLError_NoPermission"


def test_mig_uuid_in_cuda_visible_devices() -> None:
    good = snap("mig-a100", env={"CUDA_VISIBLE_DEVICES": "MIG-7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918"})
    assert gpu_facts(good).name == "NVIDIA A100-SXM4-80GB"
    bad = snap("mig-a100", env={"CUDA_VISIBLE_DEVICES": "MIG-00000000"})
    assert {"cuda-visible-devices-invalid", "no-gpu-visible"} <= tags(bad)


def test_driver_older_than_runtime() -> None:
    minor = tags(snap("driver-old-l4"))  # driver 535 = CUDA 12.2, stack built with 12.8
    assert "driver-older-than-runtime" in minor and "driver-major-older-than-runtime" not in minor
    major = snap("driver-old-l4", torch_cuda="13.0", cudart=13000, nvcc="13.0")
    assert {"driver-older-than-runtime", "driver-major-older-than-runtime"} <= tags(major)
    detail = next(x.detail for x in findings(major) if x.tag == "driver-older-than-runtime")
    assert "CUDA 12.2 (535.183.01)" in detail and "torch 13.0" in detail
    assert not {"driver-older-than-runtime"} & tags(snap("driver-old-l4", torch_cuda="12.2", cudart=12020, nvcc="12.2"))


def test_captured_no_library() -> None:
    """The real outcome on this machine, recorded, with this machine's own software stack."""
    s = snapshot(nvml=replay("no-library"), env={})
    f = gpu_facts(s)
    assert not f.nvml_ok and f.nvml_error == "NVMLError_LibraryNotFound"
    assert {"no-nvml", "no-gpu-visible"} <= set(f.problems)
    if s["software"]["libraries"]["libcuda"]["value"] is None:
        assert "no-driver" in f.problems
    assert f.device_count == 0 and f.name is None


# --- environment variables and variations of the recordings -----------------------------------


def test_cuda_visible_devices_empty_and_invalid() -> None:
    assert {"cuda-visible-devices-empty", "no-gpu-visible"} <= tags(
        snap("healthy-h100", env={"CUDA_VISIBLE_DEVICES": ""})
    )
    assert {"cuda-visible-devices-invalid", "no-gpu-visible"} <= tags(
        snap("healthy-h100", env={"CUDA_VISIBLE_DEVICES": "1"})
    )
    assert tags(snap("healthy-h100", env={"CUDA_VISIBLE_DEVICES": "0"})) == set()
    assert gpu_facts(snap("healthy-h100", env={"CUDA_VISIBLE_DEVICES": "0"})).visible_devices == "0"


def test_visible_stops_at_first_invalid_entry() -> None:
    devices = json.loads((FIX / "healthy-h100.json").read_text())["devices"]
    s = snapshot(nvml=ReplayNvml.from_file(FIX / "healthy-h100.json"), env={}, software=software())
    devs = s["nvml"]["devices"]
    assert visible(None, devs) == ([0], [])
    assert visible("0,7", devs) == ([0], ["7"])
    assert visible("GPU-5f3c", devs) == ([0], [])
    assert len(devices) == 1


def _variant(name: str, **changes: Any) -> ReplayNvml:
    data = json.loads((FIX / f"{name}.json").read_text())
    data = copy.deepcopy(data)
    data["devices"][0].update(changes)
    return ReplayNvml.from_dict(data, origin=f"{name} (varied in the test)")


@pytest.mark.parametrize(
    ("mode", "tag"), [(3, "exclusive-compute-mode"), (1, "exclusive-compute-mode"), (2, "compute-mode-prohibited")]
)
def test_compute_modes(mode: int, tag: str) -> None:
    s = snapshot(nvml=_variant("healthy-h100", compute_mode=mode), env={}, software=software())
    assert tags(s) == {tag}


def test_row_remap_failure_and_hw_slowdown() -> None:
    s = snapshot(
        nvml=_variant(
            "healthy-h100",
            remapped_rows={"correctable": 0, "uncorrectable": 3, "pending": 0, "failure": 1},
            throttle_reasons=0x40,
        ),
        env={},
        software=software(),
    )
    assert tags(s) == {"row-remap-failure", "clocks-hw-slowdown"}


def test_mig_without_instances() -> None:
    s = snapshot(nvml=_variant("mig-a100", mig_devices=[]), env={}, software=software())
    assert {"mig-enabled", "mig-no-instances"} <= tags(s)


def test_torch_problems() -> None:
    assert "torch-cpu-build" in tags(snap("healthy-h100", torch_cuda=None))
    # a torch built for sm_37 .. sm_86 (no sm_90 code, no PTX) on an H100
    old = snap("healthy-h100", arch_list=["sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"])
    assert tags(old) == {"torch-arch-missing"}
    assert "torch-triton-version-skew" in tags(snap("healthy-h100", pin="triton==3.2.0"))


def test_arch_compatibility() -> None:
    assert arch_runs("sm_89", ["sm_80"])  # same-major SASS
    assert not arch_runs("sm_80", ["sm_86"])  # newer minor SASS does not run on an older minor
    assert arch_runs("sm_90", ["compute_80"])  # PTX JIT
    assert not arch_runs("sm_100", ["sm_90a", "compute_90a"])  # arch-specific code runs nowhere else
    assert arch_runs("sm_90", ["sm_90a"])


def test_missing_tools() -> None:
    s = snap("healthy-h100", nvcc=None, cudart=None)
    assert {"no-nvcc", "no-cuda-runtime"} <= tags(s)
    assert "no-ptxas" not in tags(s)  # triton's bundled ptxas is there


# --- provenance, recording, Xid -----------------------------------------------------------------


def _walk_fields(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    out = []
    if isinstance(node, dict):
        if "value" in node and "from" in node:
            return [(path, node)]
        for k, v in node.items():
            out += _walk_fields(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _walk_fields(v, f"{path}[{i}]")
    return out


@pytest.mark.parametrize(
    "name", ["healthy-h100", "ecc-uncorrectable-a100", "memory-held-a10g", "mig-a100", "driver-old-l4"]
)
def test_every_field_says_where_it_came_from(name: str) -> None:
    s = snapshot(nvml=replay(name), env={})
    fields = _walk_fields(s["nvml"]) + _walk_fields(s["software"])
    assert len(fields) > 30
    for path, f in fields:
        assert f["from"], path
        if f["value"] is None and not path.endswith(("hip", "triton_pin", ".cuda")):
            assert f.get("error"), f"{path} has no value and no reason"
    json.dumps(s)  # JSON-able


def test_unrecorded_query_is_reported_not_invented() -> None:
    data = json.loads((FIX / "healthy-h100.json").read_text())
    del data["devices"][0]["temperature"]
    s = snapshot(nvml=ReplayNvml.from_dict(data), env={}, software=software())
    temp = s["nvml"]["devices"][0]["temperature"]
    assert temp["value"] is None and temp["error"] == "NotRecorded"


def test_recording_round_trip() -> None:
    rec = RecordingNvml(replay("ecc-uncorrectable-a100"))
    first = snapshot(nvml=rec, env={}, software=software())
    again = snapshot(nvml=ReplayNvml.from_dict(rec.recording()), env={}, software=software())
    assert first["nvml"]["devices"] == again["nvml"]["devices"]
    assert gpu_facts(first) == gpu_facts(again)


def test_xid_events_and_meaning() -> None:
    src = ReplayNvml.from_dict(
        {"kdiag_nvml_recording": 1, "devices": [{}], "xid_events": [{"device": 0, "xid": 31}, {"device": 0, "xid": 79}]}
    )
    src.init()
    with XidWatch(src, poll_ms=5) as w:
        for _ in range(100):
            if len(w.events) == 2:
                break
            import time

            time.sleep(0.01)
    assert w.result() == ((0, 31), (0, 79)) and w.error is None
    s = snap("healthy-h100")
    s["nvml"]["xid_events"] = [{"device": d, "xid": x} for d, x in w.result()]  # what the runner attaches
    f = gpu_facts(s)
    assert f.xids == (31, 79) and f.problems == ("xid-hardware",)  # 31 alone is the program's fault
    s["nvml"]["xid_events"] = [{"device": 0, "xid": 31}]
    assert gpu_facts(s).problems == ()


def test_xid_watch_reports_why_it_cannot_watch() -> None:
    src = ReplayNvml.from_dict(
        {
            "kdiag_nvml_recording": 1,
            "devices": [{}],
            "xid_register": {"nvml_error": "NVMLError_NotSupported", "code": 3},
        }
    )
    src.init()
    with XidWatch(src) as w:
        pass
    assert w.result() == () and w.error is not None and w.error.error == "NVMLError_NotSupported"


def test_facts_go_into_evidence() -> None:
    f = gpu_facts(snap("driver-old-l4"))
    ev = Evidence(gpu=f)
    assert Evidence.from_dict(json.loads(json.dumps(ev.to_dict()))).gpu == f
    ctx = ev.context()
    assert "driver-older-than-runtime" in ctx["gpu_problems"] and ctx["gpu_cuda_driver_version"] == 12020
