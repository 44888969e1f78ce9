"""The machine as an operator sees it: one JSON-able snapshot, its findings, and the rule facts.

``snapshot()`` reads NVML through :class:`~diagnose.envinfo.nvml.NvmlSource` (live ``pynvml`` by
default, a :class:`~diagnose.envinfo.nvml_replay.ReplayNvml` in tests), the software stack through
:mod:`diagnose.envinfo.stack`, and the variables that change how CUDA, torch and triton behave.
Every value is a field ``{"value": ..., "from": "<source>"}``; a failed source adds ``"error"``
with the reason (NVML's own error name for NVML calls).

``findings(snapshot)`` (:mod:`diagnose.envinfo.findings`) says what is wrong with the machine, as normalised tags, and
``gpu_facts(snapshot)`` flattens it into :class:`diagnose.facts.GpuFacts` for the rules
(``gpu_problems`` holds the tags).

The problem tags are listed in :mod:`diagnose.envinfo.findings`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from diagnose.envinfo import nvml as _nvml
from diagnose.envinfo import stack
from diagnose.envinfo.findings import findings, throttle_reasons, value_of, visible
from diagnose.envinfo.nvml import (
    COMPUTE_MODES,
    DEVICE_QUERIES,
    SYSTEM_QUERIES,
    NvmlCallError,
    NvmlSource,
)
from diagnose.facts import GpuFacts

SNAPSHOT_VERSION = 1

#: variables that change what CUDA, torch, triton or cupy do (exact names and prefixes)
ENV_NAMES = ("LD_LIBRARY_PATH", "LD_PRELOAD", "PATH")
ENV_PREFIXES = (
    "CUDA_",
    "NVIDIA_",
    "PYTORCH_",
    "TORCH_",
    "TORCHINDUCTOR_",
    "TRITON_",
    "CUPY_",
    "CUBLAS_",
    "CUDNN_",
    "NCCL_",
    "COMPUTE_SANITIZER",
)


def _ok(value: Any, src: str) -> dict[str, Any]:
    return {"value": value, "from": src}


def _ask(call: Callable[[], Any], src: str, convert: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
    try:
        return _ok(convert(call()), src)
    except NvmlCallError as e:
        return {"value": None, "from": src, "error": e.error, "message": e.message}


# --- NVML ----------------------------------------------------------------------------------


def _cc(v: Any) -> str:
    return f"{int(v[0])}.{int(v[1])}"


def _modes(v: Any) -> dict[str, bool]:
    return {"current": bool(v[0]), "pending": bool(v[1])}


def _power(v: Any) -> dict[str, Any]:
    limit = v.get("limit_mw")
    return {"usage_w": v["usage_mw"] / 1000, "limit_w": None if limit is None else limit / 1000}


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "compute_capability": _cc,
    "compute_mode": lambda v: COMPUTE_MODES.get(int(v), f"unknown({v})"),
    "persistence_mode": bool,
    "mig_mode": _modes,
    "ecc_mode": _modes,
    "throttle_reasons": throttle_reasons,
    "power": _power,
}


def collect_nvml(source: NvmlSource) -> dict[str, Any]:
    out: dict[str, Any] = {"source": source.label, "devices": []}
    try:
        source.init()
    except NvmlCallError as e:
        out["init"] = {"ok": False, "from": "nvml:nvmlInit", "error": e.error, "code": e.code, "message": e.message}
        return out
    out["init"] = {"ok": True, "from": "nvml:nvmlInit"}
    try:
        for q, fn in SYSTEM_QUERIES.items():
            out[q] = _ask(lambda q=q: source.system(q), f"nvml:{fn}")  # type: ignore[misc]
        out["device_count"] = _ask(source.device_count, "nvml:nvmlDeviceGetCount")
        for i in range(out["device_count"]["value"] or 0):
            out["devices"].append(_collect_device(source, i))
    finally:
        with contextlib.suppress(NvmlCallError):
            source.shutdown()
    return out


def _collect_device(source: NvmlSource, i: int) -> dict[str, Any]:
    dev: dict[str, Any] = {"index": i}
    for q, fn in DEVICE_QUERIES.items():
        if q == "mig_devices" and not (dev["mig_mode"]["value"] or {}).get("current"):
            dev[q] = _ok([], "nvml:nvmlDeviceGetMigMode (MIG is off)")
            continue
        dev[q] = _ask(lambda q=q: source.device(i, q), f"nvml:{fn}", _CONVERT.get(q, lambda v: v))  # type: ignore[misc]
    cc = dev["compute_capability"]["value"]
    dev["arch"] = _ok(f"sm_{cc.replace('.', '')}" if cc else None, "from compute_capability")
    return dev


# --- the snapshot --------------------------------------------------------------------------


def environment(env: Mapping[str, str]) -> dict[str, Any]:
    chosen = {k: v for k, v in env.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}
    return {
        "from": "environment",
        "watched": [*ENV_NAMES, *(p + "*" for p in ENV_PREFIXES)],
        "set": dict(sorted(chosen.items())),
    }


def snapshot(
    *,
    nvml: NvmlSource | None = None,
    env: Mapping[str, str] = os.environ,
    software: Mapping[str, Any] | None = None,
    probe_torch: bool = False,
) -> dict[str, Any]:
    """NVML data, the software stack and the environment, as one JSON-able dict.

    ``nvml``: the NVML source (default: live ``pynvml``).  ``software``: a software part recorded
    elsewhere (default: collected from this machine).  ``probe_torch``: also ask a child python for
    torch's CUDA arch list (imports torch there: seconds).
    """
    t0 = time.perf_counter()
    snap: dict[str, Any] = {
        "kdiag_env": SNAPSHOT_VERSION,
        "taken_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        # looked up at call time (not bound at import), so a stand-in source can replace the library
        "nvml": collect_nvml(nvml if nvml is not None else _nvml.LiveNvml()),
        "software": dict(software) if software is not None else stack.collect(env, probe_torch=probe_torch),
        "env": environment(env),
    }
    snap["took_s"] = round(time.perf_counter() - t0, 4)
    return snap


# --- the rule facts ------------------------------------------------------------------------


def gpu_facts(snap: Mapping[str, Any], *, exclude_pids: Iterable[int] = ()) -> GpuFacts:
    """Flatten a snapshot for the rules.  ``exclude_pids``: the target's own processes.

    The device fields describe the GPU the target uses (the first one CUDA_VISIBLE_DEVICES
    leaves); ECC, retirement and remapping flags hold for any visible GPU.
    """
    if snap.get("kdiag_env", SNAPSHOT_VERSION) != SNAPSHOT_VERSION:
        raise ValueError(f"environment snapshot version {snap.get('kdiag_env')} is not {SNAPSHOT_VERSION}")
    skip = set(exclude_pids)
    nv = snap.get("nvml", {})
    sw = snap.get("software", {})
    cvd = snap.get("env", {}).get("set", {}).get("CUDA_VISIBLE_DEVICES")
    init = nv.get("init", {})
    devices = nv.get("devices", [])
    shown, _bad = visible(cvd, devices) if init.get("ok") else ([], [])
    by_index = {d["index"]: d for d in devices}
    vis = [by_index[i] for i in shown]
    target = vis[0] if vis else None

    def t(key: str, *sub: str) -> Any:
        return value_of(target.get(key), *sub) if target else None

    procs = [p for p in (t("processes") or []) if p.get("pid") not in skip]
    ecc = [(value_of(d.get("ecc_errors")) or {}) for d in vis]
    torch = sw.get("torch", {})
    return GpuFacts(
        nvml_ok=bool(init.get("ok")),
        nvml_error=init.get("error"),
        driver_version=value_of(nv.get("driver_version")),
        cuda_driver_version=value_of(nv.get("cuda_driver_version")),
        device_count=len(devices),
        visible_devices=cvd,
        name=t("name"),
        arch=t("arch"),
        smem_optin_bytes=_smem_optin(t("arch")),
        mem_total_bytes=_float(t("memory", "total")),
        mem_used_bytes=_float(t("memory", "used")),
        mem_free_bytes=_float(t("memory", "free")),
        other_process_count=len(procs),
        other_process_bytes=float(sum(p.get("used_gpu_memory") or 0 for p in procs)) if procs else None,
        compute_mode=t("compute_mode"),
        mig_enabled=any(value_of(d.get("mig_mode"), "current") for d in vis),
        mig_instances=len(t("mig_devices") or []),
        ecc_enabled=bool(t("ecc_mode", "current")),
        ecc_uncorrectable_volatile=sum(int(e.get("volatile_uncorrected") or 0) for e in ecc),
        ecc_uncorrectable_aggregate=sum(int(e.get("aggregate_uncorrected") or 0) for e in ecc),
        retired_pages_pending=any(bool(value_of(d.get("retired_pages"), "pending")) for d in vis),
        row_remap_failure=any(bool(value_of(d.get("remapped_rows"), "failure")) for d in vis),
        row_remap_pending=any(bool(value_of(d.get("remapped_rows"), "pending")) for d in vis),
        xids=tuple(int(e["xid"]) for e in nv.get("xid_events", [])),
        throttle_reasons=tuple(t("throttle_reasons") or ()),
        torch_version=value_of(torch.get("version")),
        torch_cuda=value_of(torch.get("cuda")),
        torch_arch_list=tuple(value_of(torch.get("arch_list")) or ()),
        triton_version=value_of(sw.get("triton", {}).get("version")),
        runtime_cuda_version=value_of(sw.get("cuda_runtime"), "version"),
        nvcc_version=value_of(sw.get("nvcc"), "version"),
        problems=tuple(dict.fromkeys(f.tag for f in findings(snap, exclude_pids=skip))),
    )


def _smem_optin(arch: str | None) -> float | None:
    from diagnose.envinfo import gpuspec  # reads the YAML table: only when there is a GPU to look up

    spec = gpuspec.try_lookup(arch)
    return float(spec.smem_per_block_optin) if spec else None


def _float(v: Any) -> float | None:
    return None if v is None else float(v)
