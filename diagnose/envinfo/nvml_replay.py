"""NVML without the library: replay a recording, or record what a source answered.

The recording format is described in :mod:`diagnose.envinfo.nvml`.  A real GPU machine writes one
with ``kdiag env --record-nvml FILE``; tests and ``kdiag env --replay FILE`` read it back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.envinfo.nvml import DEVICE_QUERIES, RECORDING_VERSION, SYSTEM_QUERIES, NvmlCallError, NvmlSource

# --- replay: a recording file ----------------------------------------------------------


def _raise_if_error(call: str, answer: Any) -> Any:
    if isinstance(answer, Mapping) and "nvml_error" in answer:
        raise NvmlCallError(call, str(answer["nvml_error"]), answer.get("code"), str(answer.get("message") or ""))
    return answer


@dataclass
class ReplayNvml:
    """Answers NVML calls from a recording, so recorded machines stand in for the library."""

    recording: dict[str, Any]
    origin: str = "<dict>"
    _xids: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def from_file(cls, path: str | Path) -> ReplayNvml:
        data = json.loads(Path(path).read_text())
        return cls.from_dict(data, origin=str(path))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, origin: str = "<dict>") -> ReplayNvml:
        if data.get("kdiag_nvml_recording") != RECORDING_VERSION:
            raise ValueError(f"{origin}: not a kdiag NVML recording (version {RECORDING_VERSION})")
        return cls(dict(data), origin)

    @property
    def label(self) -> str:
        return f"replay of {self.origin}"

    def init(self) -> None:
        if self.recording.get("init") is not None:
            _raise_if_error("nvmlInit", self.recording["init"])
        self._xids = [(int(e["device"]), int(e["xid"])) for e in self.recording.get("xid_events", [])]

    def shutdown(self) -> None:
        pass

    def system(self, query: str) -> Any:
        fn = SYSTEM_QUERIES[query]
        system = self.recording.get("system", {})
        if query not in system:
            raise NvmlCallError(fn, "NotRecorded", None, f"{self.origin} has no answer for {query}")
        return _raise_if_error(fn, system[query])

    def device_count(self) -> int:
        if "device_count" in self.recording:
            return int(_raise_if_error("nvmlDeviceGetCount", self.recording["device_count"]))
        return len(self.recording.get("devices", []))

    def device(self, index: int, query: str) -> Any:
        fn = DEVICE_QUERIES[query]
        devices = self.recording.get("devices", [])
        if not 0 <= index < len(devices):
            raise NvmlCallError("nvmlDeviceGetHandleByIndex", "NVMLError_InvalidArgument", 2, f"no device {index}")
        dev = devices[index]
        if query not in dev:
            raise NvmlCallError(fn, "NotRecorded", None, f"{self.origin} has no answer for device {index} {query}")
        return _raise_if_error(fn, dev[query])

    def register_xid_events(self) -> None:
        if "xid_register" in self.recording:
            _raise_if_error("nvmlDeviceRegisterEvents", self.recording["xid_register"])

    def wait_xid(self, timeout_ms: int) -> tuple[int, int] | None:
        if self._xids:
            return self._xids.pop(0)
        time.sleep(min(timeout_ms, 10) / 1000)  # nothing left: behave like a quiet driver
        return None


# --- recording: write down what a source answered --------------------------------------


class RecordingNvml:
    """Wraps a source and keeps every answer (or failure) in the recording format."""

    def __init__(self, inner: NvmlSource, *, provenance: Mapping[str, Any] | None = None) -> None:
        self.inner = inner
        self._rec: dict[str, Any] = {
            "kdiag_nvml_recording": RECORDING_VERSION,
            "provenance": dict(provenance or {}),
            "init": None,
            "system": {},
            "devices": [],
        }

    @property
    def label(self) -> str:
        return self.inner.label

    def recording(self) -> dict[str, Any]:
        return json.loads(json.dumps(self._rec))

    def _keep(self, slot: dict[str, Any], key: str, call: Callable[[], Any]) -> Any:
        try:
            slot[key] = value = call()
        except NvmlCallError as e:
            slot[key] = e.as_answer()
            raise
        return value

    def init(self) -> None:
        try:
            self.inner.init()
        except NvmlCallError as e:
            self._rec["init"] = e.as_answer()
            raise

    def shutdown(self) -> None:
        self.inner.shutdown()

    def system(self, query: str) -> Any:
        return self._keep(self._rec["system"], query, lambda: self.inner.system(query))

    def device_count(self) -> int:
        return int(self._keep(self._rec, "device_count", self.inner.device_count))

    def device(self, index: int, query: str) -> Any:
        devices = self._rec["devices"]
        while len(devices) <= index:
            devices.append({})
        return self._keep(devices[index], query, lambda: self.inner.device(index, query))

    def register_xid_events(self) -> None:
        self._keep(self._rec, "xid_register", self.inner.register_xid_events)

    def wait_xid(self, timeout_ms: int) -> tuple[int, int] | None:
        got = self.inner.wait_xid(timeout_ms)
        if got is not None:
            self._rec.setdefault("xid_events", []).append({"device": got[0], "xid": got[1]})
        return got
