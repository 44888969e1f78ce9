"""What is wrong with the machine: the findings read from a snapshot (:mod:`diagnose.envinfo.snapshot`).

Problem tags (``GpuFacts.problems``):

==============================  ==========================================================================
``no-nvml``                     ``nvmlInit`` failed; ``gpu_nvml_error`` says why (``NVMLError_LibraryNotFound``...)
``no-driver``                   no NVIDIA driver: NVML's library and ``libcuda.so.1`` are both absent, or
                                NVML says ``NVMLError_DriverNotLoaded``
``nvml-driver-mismatch``        ``NVMLError_LibRmVersionMismatch``: user-space driver and kernel module differ
``no-gpu-visible``              the target will see no GPU: no driver, NVML counts 0 devices, or
                                ``CUDA_VISIBLE_DEVICES`` leaves none
``cuda-visible-devices-empty``  ``CUDA_VISIBLE_DEVICES`` is set to an empty string
``cuda-visible-devices-invalid``  it names an index or UUID that is not there (CUDA stops at that entry)
``driver-older-than-runtime``   the driver's CUDA version is below a runtime present here (libcudart,
                                torch's CUDA, nvcc); the finding's detail names which
``driver-major-older-than-runtime``  ... and the major version differs (no minor-version compatibility)
``ecc-uncorrectable``           a visible GPU has volatile uncorrectable ECC errors
``retired-pages-pending``       a page retirement waits for a GPU reset / driver reload
``row-remap-pending``           a row remapping waits for a GPU reset
``row-remap-failure``           a row remapping failed (the GPU needs service)
``memory-held-by-other-process``  other processes hold >= 5 % of a visible GPU's memory, or >= 10 % is in use
``exclusive-compute-mode``      a visible GPU is in Exclusive_Process (or Exclusive_Thread) compute mode
``compute-mode-prohibited``     a visible GPU is in Prohibited compute mode: no CUDA context at all
``mig-enabled``                 MIG is on for a visible GPU (the target gets a slice)
``mig-no-instances``            MIG is on but no MIG device exists: CUDA sees nothing to run on
``torch-cpu-build``             the installed torch is a CPU build (``torch.version.cuda`` is None)
``torch-arch-missing``          torch's arch list has no SASS or PTX the visible GPU can run
``torch-triton-version-skew``   torch pins a triton version other than the installed one
``xid-hardware``                NVML reported an Xid that points at the hardware (see :mod:`.xid`)
``clocks-hw-slowdown``          a visible GPU is clocked down by a hardware slowdown (thermal, power brake)
``no-nvcc`` ``no-ptxas`` ``no-nvrtc`` ``no-cuda-runtime`` ``no-compute-sanitizer``
                                that tool or library was not found
==============================  ==========================================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from diagnose.envinfo import xid
from diagnose.envinfo.nvml import THROTTLE_REASONS

OTHER_PROCESS_SHARE = 0.05  # other processes holding this share of a GPU's memory is a finding
USED_SHARE = 0.10  # memory in use with no process visible (other PID namespaces) above this share too
HW_SLOWDOWN = ("HwSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown")


def throttle_reasons(mask: Any) -> list[str]:
    return [name for bit, name in THROTTLE_REASONS.items() if int(mask) & bit]


# --- reading a snapshot --------------------------------------------------------------------


def value_of(field: Any, *keys: str) -> Any:
    """The value of a field (or of a key inside it), None when absent or failed."""
    if not isinstance(field, Mapping):
        return None
    value = field.get("value")
    for k in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(k)
    return value


def _version_code(text: str | None) -> int | None:
    """CUDA's own encoding of a version: "12.8" → 12080, "13.0.88" → 13000."""
    m = re.match(r"(\d+)\.(\d+)", text or "")
    return int(m.group(1)) * 1000 + int(m.group(2)) * 10 if m else None


def _fmt_cuda(code: int) -> str:
    return f"{code // 1000}.{code % 1000 // 10}"


def visible(cvd: str | None, devices: list[dict[str, Any]]) -> tuple[list[int], list[str]]:
    """NVML indices CUDA_VISIBLE_DEVICES leaves, and the entries that named nothing.

    CUDA reads the list up to the first entry it cannot resolve.  Indices are NVML's (PCI order),
    which matches CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID or on a machine of identical GPUs.
    """
    if cvd is None:
        return [d["index"] for d in devices], []
    if not cvd.strip():
        return [], []  # set but empty: no GPU, and nothing invalid either
    out: list[int] = []
    for raw in cvd.split(","):
        entry = raw.strip()
        hit = None
        if re.fullmatch(r"\d+", entry) and int(entry) < len(devices):
            hit = int(entry)
        elif entry.startswith(("GPU-", "MIG-")):
            for d in devices:
                uuids = [value_of(d.get("uuid"))] + [m.get("uuid") for m in (value_of(d.get("mig_devices")) or [])]
                if any(u and u.startswith(entry) for u in uuids):
                    hit = d["index"]
        if hit is None:
            return out, [entry]
        if hit not in out:
            out.append(hit)
    return out, []


@dataclass(frozen=True)
class Finding:
    tag: str
    detail: str
    device: int | None = None


def arch_runs(device_arch: str, arch_list: Iterable[str]) -> bool:
    """Whether a build for ``arch_list`` has code the device can run (same-major SASS or older PTX).

    >>> arch_runs("sm_86", ["sm_80", "sm_90"]), arch_runs("sm_120", ["sm_80", "sm_90"])
    (True, False)
    >>> arch_runs("sm_120", ["sm_90", "compute_90"]), arch_runs("sm_100", ["sm_90a"])
    (True, False)
    """
    m = re.fullmatch(r"sm_(\d+)", device_arch)
    if not m:
        return True  # unknown device arch: no claim
    dmaj, dmin = divmod(int(m.group(1)), 10)
    for a in arch_list:
        am = re.fullmatch(r"(sm|compute)_(\d+)([af]?)", a.strip())
        if not am:
            continue
        maj, mn = divmod(int(am.group(2)), 10)
        if am.group(1) == "sm":
            if am.group(3) == "a":
                if (maj, mn) == (dmaj, dmin):
                    return True
            elif maj == dmaj and mn <= dmin:
                return True
        elif am.group(3) == "" and (maj, mn) <= (dmaj, dmin):
            return True  # PTX the driver can JIT
    return False


def findings(snap: Mapping[str, Any], *, exclude_pids: Iterable[int] = ()) -> list[Finding]:
    """What the snapshot shows is wrong with the machine, in a stable order."""
    out: list[Finding] = []
    nv = snap.get("nvml", {})
    sw = snap.get("software", {})
    env_set = snap.get("env", {}).get("set", {})
    cvd = env_set.get("CUDA_VISIBLE_DEVICES")
    init = nv.get("init", {})
    libs = sw.get("libraries", {})
    devices = nv.get("devices", [])
    skip = set(exclude_pids)

    if not init.get("ok"):
        err = init.get("error")
        out.append(Finding("no-nvml", f"nvmlInit failed: {err} ({init.get('message') or ''})"))
        no_libcuda = libs.get("libcuda", {}).get("value") is None and "libcuda" in libs
        if err == "NVMLError_DriverNotLoaded" or (err == "NVMLError_LibraryNotFound" and no_libcuda):
            out.append(
                Finding(
                    "no-driver",
                    "no NVIDIA driver: "
                    + (
                        "the kernel module is not loaded"
                        if err == "NVMLError_DriverNotLoaded"
                        else "neither libnvidia-ml.so.1 nor libcuda.so.1 is installed or mounted"
                    ),
                )
            )
        if err == "NVMLError_LibRmVersionMismatch":
            out.append(Finding("nvml-driver-mismatch", "the driver's user-space libraries and kernel module differ"))
    if cvd is not None and not cvd.strip():
        out.append(
            Finding("cuda-visible-devices-empty", "CUDA_VISIBLE_DEVICES is set to an empty string: CUDA sees no GPU")
        )
    shown, bad = visible(cvd, devices) if init.get("ok") else ([], [])
    if bad:
        out.append(
            Finding(
                "cuda-visible-devices-invalid",
                f"CUDA_VISIBLE_DEVICES={cvd!r}: {bad[0]!r} names no GPU here; CUDA ignores it and what follows",
            )
        )
    no_gpu_why = None
    if any(f.tag == "no-driver" for f in out):
        no_gpu_why = "there is no driver"
    elif not init.get("ok"):
        no_gpu_why = f"NVML cannot be read ({init.get('error')}), so no GPU can be confirmed"
    elif not devices:
        no_gpu_why = "NVML counts 0 GPUs"
    elif not shown:
        no_gpu_why = f"CUDA_VISIBLE_DEVICES={cvd!r} hides every GPU"
    if no_gpu_why:
        out.append(Finding("no-gpu-visible", f"no usable GPU: {no_gpu_why}"))

    out += _version_findings(nv, sw)
    by_index = {d["index"]: d for d in devices}
    for i in shown:
        out += _device_findings(by_index[i], skip)
    hw = xid.hardware_xids([int(e["xid"]) for e in nv.get("xid_events", [])])
    if hw:
        out.append(Finding("xid-hardware", "; ".join(f"Xid {x}: {xid.meaning(x).name}" for x in hw)))
    out += _stack_findings(sw, [value_of(by_index[i].get("arch")) for i in shown])
    return out


def _version_findings(nv: Mapping[str, Any], sw: Mapping[str, Any]) -> list[Finding]:
    driver = value_of(nv.get("cuda_driver_version"))
    if not driver:
        return []
    runtimes = {
        "libcudart": value_of(sw.get("cuda_runtime"), "version"),
        "torch": _version_code(value_of(sw.get("torch", {}).get("cuda"))),
        "nvcc": _version_code(value_of(sw.get("nvcc"), "release")),
    }
    newer = {k: v for k, v in runtimes.items() if v and v > driver}
    if not newer:
        return []
    names = ", ".join(f"{k} {_fmt_cuda(v)}" for k, v in newer.items())
    out = [
        Finding(
            "driver-older-than-runtime",
            f"the driver supports CUDA {_fmt_cuda(driver)} ({value_of(nv.get('driver_version'))}); newer here: {names}",
        )
    ]
    if any(v // 1000 > driver // 1000 for v in newer.values()):
        out.append(
            Finding(
                "driver-major-older-than-runtime",
                f"CUDA {_fmt_cuda(max(newer.values()))} needs a driver of that major version; this one is {_fmt_cuda(driver)}",
            )
        )
    return out


def _device_findings(d: Mapping[str, Any], skip: set[int]) -> list[Finding]:
    i = d["index"]
    out: list[Finding] = []
    name = value_of(d.get("name")) or f"GPU {i}"
    ecc = value_of(d.get("ecc_errors")) or {}
    if (ecc.get("volatile_uncorrected") or 0) > 0:
        out.append(
            Finding(
                "ecc-uncorrectable",
                f"{name}: {ecc['volatile_uncorrected']} uncorrectable ECC errors since "
                f"the driver loaded ({ecc.get('aggregate_uncorrected')} in its lifetime)",
                i,
            )
        )
    if value_of(d.get("retired_pages"), "pending"):
        out.append(Finding("retired-pages-pending", f"{name}: a retired page waits for a GPU reset", i))
    rows = value_of(d.get("remapped_rows")) or {}
    if rows.get("pending"):
        out.append(Finding("row-remap-pending", f"{name}: a row remapping waits for a GPU reset", i))
    if rows.get("failure"):
        out.append(Finding("row-remap-failure", f"{name}: a row remapping failed; the GPU needs service", i))
    mem = value_of(d.get("memory")) or {}
    listed = value_of(d.get("processes"))
    procs = [p for p in (listed or []) if p.get("pid") not in skip]
    held = sum(p.get("used_gpu_memory") or 0 for p in procs)
    total = mem.get("total") or 0
    # NVML lists no process of another PID namespace (container) although its memory is in use:
    # then "used" speaks for it, unless the processes it lists are all the target's own
    unseen = listed == [] and (mem.get("used") or 0) >= USED_SHARE * total
    if total and (held >= OTHER_PROCESS_SHARE * total or unseen):
        who = (
            ", ".join(
                f"pid {p['pid']} {p.get('name') or '?'} {(p.get('used_gpu_memory') or 0) / 2**30:.1f} GiB"
                for p in procs
            )
            or "processes NVML cannot name (another container?)"
        )
        out.append(
            Finding(
                "memory-held-by-other-process",
                f"{name}: {(mem.get('used') or 0) / 2**30:.1f} of {total / 2**30:.1f} GiB in use by {who}",
                i,
            )
        )
    mode = value_of(d.get("compute_mode"))
    if mode in ("Exclusive_Process", "Exclusive_Thread"):
        out.append(Finding("exclusive-compute-mode", f"{name}: compute mode {mode}: one process at a time", i))
    elif mode == "Prohibited":
        out.append(Finding("compute-mode-prohibited", f"{name}: compute mode Prohibited: no CUDA context allowed", i))
    if value_of(d.get("mig_mode"), "current"):
        n = len(value_of(d.get("mig_devices")) or [])
        out.append(Finding("mig-enabled", f"{name}: MIG is on, {n} MIG device(s)", i))
        if n == 0:
            out.append(Finding("mig-no-instances", f"{name}: MIG is on but no GPU instance exists", i))
    slow = [r for r in (value_of(d.get("throttle_reasons")) or []) if r in HW_SLOWDOWN]
    if slow:
        out.append(Finding("clocks-hw-slowdown", f"{name}: clocks held down by {', '.join(slow)}", i))
    return out


def _stack_findings(sw: Mapping[str, Any], archs: list[str | None]) -> list[Finding]:
    out: list[Finding] = []
    torch = sw.get("torch", {})
    tver = value_of(torch.get("version"))
    if (
        tver
        and "error" not in torch.get("cuda", {"error": 1})
        and value_of(torch.get("cuda")) is None
        and not value_of(torch.get("hip"))
    ):
        out.append(Finding("torch-cpu-build", f"torch {tver} is a CPU build: torch.cuda is unavailable"))
    arch_list = value_of(torch.get("arch_list"))
    if arch_list:
        for a in dict.fromkeys(a for a in archs if a):
            if not arch_runs(a, arch_list):
                out.append(
                    Finding(
                        "torch-arch-missing", f"torch {tver} is built for {' '.join(arch_list)}: nothing runs on {a}"
                    )
                )
    pin = value_of(torch.get("triton_pin"))
    tri = value_of(sw.get("triton", {}).get("version"))
    if pin and tri and pin.split("==", 1)[1] != tri:
        out.append(Finding("torch-triton-version-skew", f"torch {tver} pins {pin}; triton {tri} is installed"))
    missing = {
        "no-nvcc": sw.get("nvcc"),
        "no-ptxas": sw.get("ptxas") if value_of(sw.get("triton", {}).get("ptxas")) is None else {"value": 1},
        "no-nvrtc": sw.get("libraries", {}).get("libnvrtc"),
        "no-cuda-runtime": sw.get("cuda_runtime"),
        "no-compute-sanitizer": sw.get("compute_sanitizer"),
    }
    for tag, f in missing.items():
        if isinstance(f, Mapping) and f.get("value") is None:
            out.append(Finding(tag, f.get("error") or "not found"))
    return out
