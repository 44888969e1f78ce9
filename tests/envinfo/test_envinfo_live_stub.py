"""LiveNvml's mapping of pynvml calls, checked against a stub module (no GPU here).

The stub returns what nvidia-ml-py 13.615.71's pynvml.py returns (ctypes structs with the same
field names, lists, tuples, ints) and raises its NVMLError subclasses; it is CONSTRUCTED from that
file, not captured.  A real capture replaces nothing here: this checks our code, not NVML.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from diagnose.envinfo.nvml import LiveNvml
from diagnose.envinfo.nvml_replay import RecordingNvml
from diagnose.envinfo.snapshot import gpu_facts, snapshot


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value


class NVMLError_NotSupported(NVMLError):  # pynvml's own naming
    def __init__(self) -> None:
        super().__init__(3)

    def __str__(self) -> str:
        return "Not Supported"


class NVMLError_Timeout(NVMLError):
    def __init__(self) -> None:
        super().__init__(10)


def _stub() -> types.ModuleType:
    m: Any = types.ModuleType("pynvml")
    m.NVMLError = NVMLError
    s = types.SimpleNamespace
    handle = object()

    def not_supported(*_a: object) -> None:
        raise NVMLError_NotSupported()

    m.nvmlInit = lambda: None
    m.nvmlShutdown = lambda: None
    m.nvmlSystemGetDriverVersion = lambda: "570.124.06"
    m.nvmlSystemGetCudaDriverVersion = lambda: 12080
    m.nvmlSystemGetNVMLVersion = lambda: "12.570.124.06"
    m.nvmlDeviceGetCount = lambda: 1
    m.nvmlDeviceGetHandleByIndex = lambda i: handle
    m.nvmlDeviceGetName = lambda h: "NVIDIA H100 80GB HBM3"
    m.nvmlDeviceGetUUID = lambda h: "GPU-00000000-1111-2222-3333-444444444444"
    m.nvmlDeviceGetPciInfo = lambda h: s(busId=b"00000000:18:00.0")
    m.nvmlDeviceGetCudaComputeCapability = lambda h: (9, 0)
    m.nvmlDeviceGetMemoryInfo = lambda h: s(total=80 * 2**30, free=40 * 2**30, used=40 * 2**30)
    m.nvmlDeviceGetComputeRunningProcesses = lambda h: [s(pid=77, usedGpuMemory=39 * 2**30)]
    m.nvmlSystemGetProcessName = lambda pid: "trainer"
    m.nvmlDeviceGetComputeMode = lambda h: 3
    m.nvmlDeviceGetPersistenceMode = lambda h: 1
    m.nvmlDeviceGetMigMode = not_supported  # a GPU without MIG
    m.nvmlDeviceGetEccMode = lambda h: [1, 1]
    m.nvmlDeviceGetTotalEccErrors = lambda h, etype, counter: 5 if etype == 1 and counter == 0 else 0
    m.nvmlDeviceGetRetiredPages = not_supported
    m.nvmlDeviceGetRetiredPagesPendingStatus = not_supported
    m.nvmlDeviceGetRemappedRows = lambda h: (0, 1, 1, 0)
    m.nvmlDeviceGetClockInfo = lambda h, t: {0: 1755, 1: 1755, 2: 2619}[t]
    m.nvmlDeviceGetMaxClockInfo = lambda h, t: {0: 1980, 1: 1980, 2: 2619}[t]
    m.nvmlDeviceGetCurrentClocksEventReasons = lambda h: 0x4 | 0x40
    m.nvmlDeviceGetTemperature = lambda h, sensor: 71
    m.nvmlDeviceGetPowerUsage = lambda h: 650_000
    m.nvmlDeviceGetEnforcedPowerLimit = lambda h: 700_000
    m.nvmlDeviceGetCurrPcieLinkGeneration = lambda h: 5
    m.nvmlDeviceGetCurrPcieLinkWidth = lambda h: 16
    m.nvmlDeviceGetMaxPcieLinkGeneration = lambda h: 5
    m.nvmlDeviceGetMaxPcieLinkWidth = lambda h: 16
    events: list[Any] = [s(eventType=0x8, eventData=79, device=handle)]

    def wait(es: object, timeout: int) -> Any:
        if events:
            return events.pop(0)
        raise NVMLError_Timeout()

    m.nvmlEventSetCreate = lambda: object()
    m.nvmlDeviceRegisterEvents = lambda h, mask, es: None
    m.nvmlEventSetWait = wait
    m.nvmlEventSetFree = lambda es: None
    m.nvmlDeviceGetIndex = lambda h: 0
    return m


@pytest.fixture
def stub_pynvml(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    mod = _stub()
    monkeypatch.setitem(sys.modules, "pynvml", mod)
    return mod


def test_live_source_maps_pynvml_answers(stub_pynvml: types.ModuleType) -> None:
    rec = RecordingNvml(LiveNvml())
    s = snapshot(nvml=rec, env={}, software={})
    d = s["nvml"]["devices"][0]
    assert d["pci_bus_id"]["value"] == "00000000:18:00.0" and d["arch"]["value"] == "sm_90"
    assert d["processes"]["value"] == [{"pid": 77, "used_gpu_memory": 39 * 2**30, "name": "trainer"}]
    assert d["mig_mode"]["error"] == "NVMLError_NotSupported" and d["mig_devices"]["value"] == []
    assert d["retired_pages"]["error"] == "NVMLError_NotSupported"
    assert d["throttle_reasons"]["value"] == ["SwPowerCap", "HwThermalSlowdown"]
    assert d["power"]["value"] == {"usage_w": 650.0, "limit_w": 700.0}
    f = gpu_facts(s)
    assert {
        "ecc-uncorrectable",
        "row-remap-pending",
        "exclusive-compute-mode",
        "memory-held-by-other-process",
        "clocks-hw-slowdown",
    } <= set(f.problems)
    assert f.ecc_uncorrectable_volatile == 5 and f.compute_mode == "Exclusive_Process"
    # what was recorded replays to the same answers
    assert rec.recording()["devices"][0]["compute_mode"] == 3


def test_live_xid_wait(stub_pynvml: types.ModuleType) -> None:
    src = LiveNvml()
    src.init()
    src.register_xid_events()
    assert src.wait_xid(10) == (0, 79)
    assert src.wait_xid(10) is None  # NVMLError_Timeout
    src.shutdown()


def test_live_without_the_library_says_why() -> None:
    s = snapshot(nvml=LiveNvml(), env={}, software={})
    init = s["nvml"]["init"]
    assert init["ok"] or init["error"].startswith("NVMLError_")
