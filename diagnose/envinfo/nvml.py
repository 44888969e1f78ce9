"""One narrow interface over NVML, a live implementation and a replay of recorded answers.

Everything kdiag asks NVML goes through :class:`NvmlSource`: ``init``, ``system(query)``,
``device_count``, ``device(index, query)`` and the two Xid-event calls.  A *query* is a short
name (``"memory"``, ``"ecc_errors"``...) that maps to one documented NVML function or a tight
group of them (:data:`DEVICE_QUERIES`); its answer is plain JSON (ints for NVML's enums, bytes
for memory, milliwatts for power), so the same answer can be recorded on a GPU machine and
replayed on a machine without one.  A call that fails raises :class:`NvmlCallError` carrying
NVML's own error name (``NVMLError_NotSupported``...), which the snapshot keeps as the reason.

- :class:`LiveNvml` calls ``pynvml`` (from ``nvidia-ml-py``), imported lazily in :meth:`~LiveNvml.init`.
  NVML creates no CUDA context, so it is safe in kdiag's own process.
- :class:`~diagnose.envinfo.nvml_replay.ReplayNvml` answers from a recording file
  (``tests/fixtures/nvml/*.json``).
- :class:`~diagnose.envinfo.nvml_replay.RecordingNvml` wraps any source and writes down every
  answer, so a real GPU machine produces a fixture with ``kdiag env --record-nvml FILE``.

A recording, as JSON::

    {"kdiag_nvml_recording": 1,
     "provenance": {"how": "captured" | "constructed", ...},
     "init": null,                                    # or {"nvml_error": ..., "code": ..., "message": ...}
     "system": {"driver_version": "570.124.06", "cuda_driver_version": 12080, ...},
     "devices": [{"name": "NVIDIA H100 80GB HBM3", "memory": {"total": ..., "free": ..., "used": ...},
                  "ecc_errors": {"nvml_error": "NVMLError_NotSupported", "code": 3}, ...}],
     "xid_events": [{"device": 0, "xid": 79}]}

The real outcome on a machine without a driver, recorded here (``tests/fixtures/nvml/no-library.json``):

>>> from diagnose.envinfo.nvml_replay import ReplayNvml
>>> rec = ReplayNvml.from_dict({"kdiag_nvml_recording": 1, "init": {"nvml_error": "NVMLError_LibraryNotFound",
...     "code": 12, "message": "NVML Shared Library Not Found"}, "system": {}, "devices": []})
>>> try:
...     rec.init()
... except NvmlCallError as e:
...     print(e.error, e.code, e.message)
NVMLError_LibraryNotFound 12 NVML Shared Library Not Found
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, Protocol

RECORDING_VERSION = 1

#: system query → the NVML function that answers it
SYSTEM_QUERIES: dict[str, str] = {
    "driver_version": "nvmlSystemGetDriverVersion",
    "cuda_driver_version": "nvmlSystemGetCudaDriverVersion",  # 12080 = CUDA 12.8
    "nvml_version": "nvmlSystemGetNVMLVersion",
}

#: device query → the NVML function(s) that answer it (also the "from" of every snapshot field)
DEVICE_QUERIES: dict[str, str] = {
    "name": "nvmlDeviceGetName",
    "uuid": "nvmlDeviceGetUUID",
    "pci_bus_id": "nvmlDeviceGetPciInfo",
    "compute_capability": "nvmlDeviceGetCudaComputeCapability",  # [major, minor]
    "memory": "nvmlDeviceGetMemoryInfo",  # {total, free, used} bytes
    "processes": "nvmlDeviceGetComputeRunningProcesses+nvmlSystemGetProcessName",  # [{pid, used_gpu_memory, name}]
    "compute_mode": "nvmlDeviceGetComputeMode",  # NVML_COMPUTEMODE_*
    "persistence_mode": "nvmlDeviceGetPersistenceMode",  # 0 | 1
    "mig_mode": "nvmlDeviceGetMigMode",  # [current, pending]
    "mig_devices": "nvmlDeviceGetMaxMigDeviceCount+nvmlDeviceGetMigDeviceHandleByIndex",  # [{index, name, uuid, memory}]
    "ecc_mode": "nvmlDeviceGetEccMode",  # [current, pending]
    "ecc_errors": "nvmlDeviceGetTotalEccErrors",  # {volatile,aggregate}_{corrected,uncorrected}
    "retired_pages": "nvmlDeviceGetRetiredPages+nvmlDeviceGetRetiredPagesPendingStatus",  # {single_bit, double_bit, pending}
    "remapped_rows": "nvmlDeviceGetRemappedRows",  # {correctable, uncorrectable, pending, failure}
    "clocks": "nvmlDeviceGetClockInfo+nvmlDeviceGetMaxClockInfo",  # MHz: {sm, mem, graphics, max_sm, max_mem, max_graphics}
    "throttle_reasons": "nvmlDeviceGetCurrentClocksEventReasons",  # bitmask (ThrottleReasons on old drivers)
    "temperature": "nvmlDeviceGetTemperature",  # °C, NVML_TEMPERATURE_GPU
    "power": "nvmlDeviceGetPowerUsage+nvmlDeviceGetEnforcedPowerLimit",  # {usage_mw, limit_mw}
    "pcie": "nvmlDeviceGetCurrPcieLinkGeneration+Width, nvmlDeviceGetMaxPcieLinkGeneration+Width",
}

# NVML constants the answers use (nvml.h; the same values pynvml defines)
COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}
#: nvmlClocksEventReason* bits (formerly nvmlClocksThrottleReason*)
THROTTLE_REASONS = {
    0x1: "GpuIdle",
    0x2: "ApplicationsClocksSetting",
    0x4: "SwPowerCap",
    0x8: "HwSlowdown",
    0x10: "SyncBoost",
    0x20: "SwThermalSlowdown",
    0x40: "HwThermalSlowdown",
    0x80: "HwPowerBrakeSlowdown",
    0x100: "DisplayClockSetting",
}
EVENT_XID_CRITICAL_ERROR = 0x8  # nvmlEventTypeXidCriticalError


class NvmlCallError(Exception):
    """An NVML call that failed, with NVML's own name for why."""

    def __init__(self, call: str, error: str, code: int | None = None, message: str = "") -> None:
        super().__init__(call, error, code, message)
        self.call = call  # the NVML function (or "import pynvml")
        self.error = error  # "NVMLError_LibraryNotFound", "NVMLError_NotSupported", "ImportError", "NotRecorded"
        self.code = code  # nvmlReturn_t
        self.message = message

    def __str__(self) -> str:
        code = f" ({self.code})" if self.code is not None else ""
        return f"{self.call}: {self.error}{code}: {self.message}".rstrip(": ")

    def as_answer(self) -> dict[str, Any]:
        """The form a recording stores a failed call in."""
        return {"nvml_error": self.error, "code": self.code, "message": self.message}


class NvmlSource(Protocol):
    """The calls kdiag makes to NVML; every method raises :class:`NvmlCallError` on failure."""

    @property
    def label(self) -> str: ...  # where the answers come from, for the report

    def init(self) -> None: ...

    def shutdown(self) -> None: ...

    def system(self, query: str) -> Any: ...

    def device_count(self) -> int: ...

    def device(self, index: int, query: str) -> Any: ...

    def register_xid_events(self) -> None: ...

    def wait_xid(self, timeout_ms: int) -> tuple[int, int] | None: ...  # (device index, Xid) or None on timeout


# --- live: pynvml ----------------------------------------------------------------------


class LiveNvml:
    """NVML through ``pynvml``.  Import and library loading happen in :meth:`init`."""

    def __init__(self) -> None:
        self._nv: Any = None
        self._handles: dict[int, Any] = {}
        self._events: Any = None

    @property
    def label(self) -> str:
        try:
            from importlib.metadata import version

            return f"pynvml (nvidia-ml-py {version('nvidia-ml-py')})"
        except Exception:
            return "pynvml"

    def _call(self, fn: str, *args: Any) -> Any:
        nv = self._nv
        try:
            return getattr(nv, fn)(*args)
        except nv.NVMLError as e:
            raise NvmlCallError(fn, type(e).__name__, getattr(e, "value", None), _nvml_message(e)) from None
        except AttributeError as e:  # an nvidia-ml-py too old to know the function
            raise NvmlCallError(fn, "AttributeError", None, str(e)) from None

    def init(self) -> None:
        try:
            import pynvml
        except ImportError as e:
            raise NvmlCallError("import pynvml", "ImportError", None, str(e)) from None
        self._nv = pynvml
        self._call("nvmlInit")

    def shutdown(self) -> None:
        if self._nv is not None:
            if self._events is not None:
                with contextlib.suppress(NvmlCallError):
                    self._call("nvmlEventSetFree", self._events)
                self._events = None
            self._call("nvmlShutdown")
            self._handles.clear()

    def system(self, query: str) -> Any:
        fn = SYSTEM_QUERIES[query]
        return _text(self._call(fn))

    def device_count(self) -> int:
        return int(self._call("nvmlDeviceGetCount"))

    def _handle(self, index: int) -> Any:
        if index not in self._handles:
            self._handles[index] = self._call("nvmlDeviceGetHandleByIndex", index)
        return self._handles[index]

    def device(self, index: int, query: str) -> Any:
        h = self._handle(index)
        return _LIVE_DEVICE[query](self, h)

    def register_xid_events(self) -> None:
        self._events = self._call("nvmlEventSetCreate")
        failures = []
        for i in range(self.device_count()):
            try:
                self._call("nvmlDeviceRegisterEvents", self._handle(i), EVENT_XID_CRITICAL_ERROR, self._events)
            except NvmlCallError as e:
                failures.append(e)
        if failures and len(failures) == self.device_count():
            raise failures[0]

    def wait_xid(self, timeout_ms: int) -> tuple[int, int] | None:
        try:
            data = self._call("nvmlEventSetWait", self._events, timeout_ms)
        except NvmlCallError as e:
            if e.error == "NVMLError_Timeout":
                return None
            raise
        if data.eventType != EVENT_XID_CRITICAL_ERROR:
            return None
        try:
            index = int(self._call("nvmlDeviceGetIndex", data.device))
        except NvmlCallError:
            index = -1
        return index, int(data.eventData)


def _nvml_message(e: Exception) -> str:
    try:
        return str(e)
    except Exception:  # str() of an NVMLError calls into the library
        return ""


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def _memory(nv: LiveNvml, h: Any) -> dict[str, int]:
    m = nv._call("nvmlDeviceGetMemoryInfo", h)
    return {"total": int(m.total), "free": int(m.free), "used": int(m.used)}


def _processes(nv: LiveNvml, h: Any) -> list[dict[str, Any]]:
    try:
        procs = nv._call("nvmlDeviceGetComputeRunningProcesses", h)
    except NvmlCallError as e:  # drivers before the _v3 struct
        if e.error not in ("NVMLError_FunctionNotFound", "NVMLError_ArgumentVersionMismatch"):
            raise
        procs = nv._call("nvmlDeviceGetComputeRunningProcesses_v2", h)
    out = []
    for p in procs:
        try:
            name = _text(nv._call("nvmlSystemGetProcessName", p.pid))
        except NvmlCallError:  # another PID namespace or no permission: keep the pid
            name = None
        used = p.usedGpuMemory
        out.append({"pid": int(p.pid), "used_gpu_memory": None if used is None else int(used), "name": name})
    return out


def _mig_devices(nv: LiveNvml, h: Any) -> list[dict[str, Any]]:
    out = []
    for i in range(int(nv._call("nvmlDeviceGetMaxMigDeviceCount", h))):
        try:
            mh = nv._call("nvmlDeviceGetMigDeviceHandleByIndex", h, i)
        except NvmlCallError as e:
            if e.error == "NVMLError_NotFound":  # an empty slot
                continue
            raise
        entry: dict[str, Any] = {"index": i}
        for key, fn in (("name", "nvmlDeviceGetName"), ("uuid", "nvmlDeviceGetUUID")):
            try:
                entry[key] = _text(nv._call(fn, mh))
            except NvmlCallError as e:
                entry[key] = None
                entry.setdefault("errors", {})[key] = e.error
        try:
            entry["memory"] = _memory(nv, mh)
        except NvmlCallError as e:
            entry["memory"] = None
            entry.setdefault("errors", {})["memory"] = e.error
        out.append(entry)
    return out


def _ecc_errors(nv: LiveNvml, h: Any) -> dict[str, int]:
    out = {}
    for counter, cname in ((0, "volatile"), (1, "aggregate")):  # NVML_VOLATILE_ECC, NVML_AGGREGATE_ECC
        for etype, ename in ((0, "corrected"), (1, "uncorrected")):  # NVML_MEMORY_ERROR_TYPE_*
            out[f"{cname}_{ename}"] = int(nv._call("nvmlDeviceGetTotalEccErrors", h, etype, counter))
    return out


def _retired_pages(nv: LiveNvml, h: Any) -> dict[str, int]:
    # NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0, _DOUBLE_BIT_ECC_ERROR = 1
    single = len(nv._call("nvmlDeviceGetRetiredPages", h, 0))
    double = len(nv._call("nvmlDeviceGetRetiredPages", h, 1))
    pending = int(nv._call("nvmlDeviceGetRetiredPagesPendingStatus", h))
    return {"single_bit": single, "double_bit": double, "pending": pending}


def _remapped_rows(nv: LiveNvml, h: Any) -> dict[str, int]:
    corr, unc, pending, failure = nv._call("nvmlDeviceGetRemappedRows", h)
    return {"correctable": int(corr), "uncorrectable": int(unc), "pending": int(pending), "failure": int(failure)}


def _clocks(nv: LiveNvml, h: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    errors = {}
    for ctype, cname in ((1, "sm"), (2, "mem"), (0, "graphics")):  # NVML_CLOCK_SM, _MEM, _GRAPHICS
        for fn, prefix in (("nvmlDeviceGetClockInfo", ""), ("nvmlDeviceGetMaxClockInfo", "max_")):
            try:
                out[prefix + cname] = int(nv._call(fn, h, ctype))
            except NvmlCallError as e:
                out[prefix + cname] = None
                errors[prefix + cname] = e.error
    if errors and len(errors) == 6:
        raise NvmlCallError("nvmlDeviceGetClockInfo", next(iter(errors.values())))
    if errors:
        out["errors"] = errors
    return out


def _throttle(nv: LiveNvml, h: Any) -> int:
    try:
        return int(nv._call("nvmlDeviceGetCurrentClocksEventReasons", h))
    except NvmlCallError as e:
        if e.error not in ("NVMLError_FunctionNotFound", "AttributeError"):
            raise
        return int(nv._call("nvmlDeviceGetCurrentClocksThrottleReasons", h))


def _power(nv: LiveNvml, h: Any) -> dict[str, Any]:
    usage = int(nv._call("nvmlDeviceGetPowerUsage", h))
    try:
        limit: int | None = int(nv._call("nvmlDeviceGetEnforcedPowerLimit", h))
    except NvmlCallError:
        limit = None
    return {"usage_mw": usage, "limit_mw": limit}


def _pcie(nv: LiveNvml, h: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, fn in (
        ("gen", "nvmlDeviceGetCurrPcieLinkGeneration"),
        ("width", "nvmlDeviceGetCurrPcieLinkWidth"),
        ("max_gen", "nvmlDeviceGetMaxPcieLinkGeneration"),
        ("max_width", "nvmlDeviceGetMaxPcieLinkWidth"),
    ):
        try:
            out[key] = int(nv._call(fn, h))
        except NvmlCallError:
            out[key] = None
    if all(v is None for v in out.values()):
        raise NvmlCallError("nvmlDeviceGetCurrPcieLinkGeneration", "NVMLError_NotSupported")
    return out


_LIVE_DEVICE: dict[str, Callable[[LiveNvml, Any], Any]] = {
    "name": lambda nv, h: _text(nv._call("nvmlDeviceGetName", h)),
    "uuid": lambda nv, h: _text(nv._call("nvmlDeviceGetUUID", h)),
    "pci_bus_id": lambda nv, h: _text(nv._call("nvmlDeviceGetPciInfo", h).busId),
    "compute_capability": lambda nv, h: list(nv._call("nvmlDeviceGetCudaComputeCapability", h)),
    "memory": _memory,
    "processes": _processes,
    "compute_mode": lambda nv, h: int(nv._call("nvmlDeviceGetComputeMode", h)),
    "persistence_mode": lambda nv, h: int(nv._call("nvmlDeviceGetPersistenceMode", h)),
    "mig_mode": lambda nv, h: [int(x) for x in nv._call("nvmlDeviceGetMigMode", h)],
    "mig_devices": _mig_devices,
    "ecc_mode": lambda nv, h: [int(x) for x in nv._call("nvmlDeviceGetEccMode", h)],
    "ecc_errors": _ecc_errors,
    "retired_pages": _retired_pages,
    "remapped_rows": _remapped_rows,
    "clocks": _clocks,
    "throttle_reasons": _throttle,
    "temperature": lambda nv, h: int(nv._call("nvmlDeviceGetTemperature", h, 0)),  # NVML_TEMPERATURE_GPU
    "power": _power,
    "pcie": _pcie,
}
assert set(_LIVE_DEVICE) == set(DEVICE_QUERIES)


# --- watching Xid events while a target runs -------------------------------------------


class XidWatch:
    """Collects Xid critical-error events in a thread while a target runs.

    ``with XidWatch(source) as w: run(...)`` then ``w.result()`` gives the Xids seen and, when the
    driver does not allow watching, why (``w.error``).  The source must be initialised already.

    >>> import time
    >>> from diagnose.envinfo.nvml_replay import ReplayNvml
    >>> src = ReplayNvml.from_dict({"kdiag_nvml_recording": 1, "devices": [{}], "xid_events": [{"device": 0, "xid": 79}]})
    >>> src.init()
    >>> with XidWatch(src, poll_ms=5) as w:
    ...     time.sleep(0.05)
    >>> w.result()
    ((0, 79),)
    """

    def __init__(self, source: NvmlSource, *, poll_ms: int = 200) -> None:
        self.source = source
        self.poll_ms = poll_ms
        self.events: list[tuple[int, int]] = []
        self.error: NvmlCallError | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> XidWatch:
        try:
            self.source.register_xid_events()
        except NvmlCallError as e:
            self.error = e
            return self
        self._thread = threading.Thread(target=self._loop, name="kdiag-xid-watch", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                got = self.source.wait_xid(self.poll_ms)
            except NvmlCallError as e:
                self.error = e
                return
            if got is not None:
                self.events.append(got)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(1.0, 2 * self.poll_ms / 1000))

    def result(self) -> tuple[tuple[int, int], ...]:
        return tuple(self.events)
