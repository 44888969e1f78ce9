"""``kdiag env``: the snapshot as a table for people or JSON for programs.

``main(argv)`` is what the CLI calls for ``kdiag env``; it exits 0 whatever the machine looks like
(no NVML, no GPU: those are findings, not failures) and 2 only for a usage error.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from diagnose.envinfo.findings import findings
from diagnose.envinfo.nvml import LiveNvml, NvmlSource
from diagnose.envinfo.nvml_replay import RecordingNvml, ReplayNvml
from diagnose.envinfo.snapshot import snapshot


def report(snap: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON form: the snapshot with its findings."""
    return {**snap, "findings": [asdict(f) for f in findings(snap)]}


def _val(field: Any) -> str:
    """A field for a table cell: its value, or why there is none."""
    if not isinstance(field, Mapping):
        return "-" if field is None else str(field)
    if field.get("error"):
        return f"- ({field['error']})"
    v = field.get("value")
    return "-" if v is None else str(v)


def _gib(n: Any) -> str:
    return "?" if n is None else f"{n / 2**30:.1f}"


def _usage_rows(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Memory, processes, compute mode."""
    v = lambda k: d.get(k, {}).get("value")  # noqa: E731
    rows: list[tuple[str, str]] = []
    mem = v("memory")
    rows.append(
        (
            "memory",
            f"{_gib(mem['used'])} of {_gib(mem['total'])} GiB used, {_gib(mem['free'])} free"
            if mem
            else _val(d.get("memory")),
        )
    )
    procs = v("processes")
    if procs is None:
        rows.append(("processes", _val(d.get("processes"))))
    else:
        rows.append(
            (
                "processes",
                ", ".join(f"pid {p['pid']} {p.get('name') or '?'} {_gib(p.get('used_gpu_memory'))} GiB" for p in procs)
                or "none",
            )
        )
    pers = v("persistence_mode")
    rows.append(
        (
            "compute mode",
            f"{_val(d.get('compute_mode'))}, persistence {'-' if pers is None else 'on' if pers else 'off'}",
        )
    )
    return rows


def _memory_health_rows(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    """MIG, ECC, retired pages, row remapping."""
    v = lambda k: d.get(k, {}).get("value")  # noqa: E731
    rows: list[tuple[str, str]] = []
    mig = v("mig_mode")
    if mig:
        migs = v("mig_devices") or []
        text = ("on" if mig["current"] else "off") + (
            " (change pending reset)" if mig["pending"] != mig["current"] else ""
        )
        if mig["current"]:
            text += ": " + (", ".join(f"{m.get('name')} {m.get('uuid')}" for m in migs) or "no MIG devices")
        rows.append(("MIG", text))
    else:
        rows.append(("MIG", _val(d.get("mig_mode"))))
    ecc_mode, ecc = v("ecc_mode"), v("ecc_errors")
    ecc_text = _val(d.get("ecc_mode")) if ecc_mode is None else ("on" if ecc_mode["current"] else "off")
    if ecc:
        ecc_text += (
            f"; uncorrectable {ecc['volatile_uncorrected']} volatile / {ecc['aggregate_uncorrected']} aggregate"
            f", corrected {ecc['volatile_corrected']} / {ecc['aggregate_corrected']}"
        )
    elif d.get("ecc_errors", {}).get("error"):
        ecc_text += f"; counts {_val(d.get('ecc_errors'))}"
    rows.append(("ECC", ecc_text))
    rp = v("retired_pages")
    rows.append(
        (
            "retired pages",
            f"{rp['single_bit']} single-bit, {rp['double_bit']} double-bit, pending {'yes' if rp['pending'] else 'no'}"
            if rp
            else _val(d.get("retired_pages")),
        )
    )
    rr = v("remapped_rows")
    rows.append(
        (
            "row remapping",
            f"{rr['correctable']} correctable, {rr['uncorrectable']} uncorrectable, pending "
            f"{'yes' if rr['pending'] else 'no'}, failure {'yes' if rr['failure'] else 'no'}"
            if rr
            else _val(d.get("remapped_rows")),
        )
    )
    return rows


def _clock_power_rows(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Clocks, throttling, temperature and power, PCIe."""
    v = lambda k: d.get(k, {}).get("value")  # noqa: E731
    rows: list[tuple[str, str]] = []
    ck = v("clocks")
    rows.append(
        (
            "clocks",
            f"SM {ck.get('sm')}/{ck.get('max_sm')} MHz, memory {ck.get('mem')}/{ck.get('max_mem')} MHz"
            if ck
            else _val(d.get("clocks")),
        )
    )
    tr = v("throttle_reasons")
    rows.append(("throttle", (", ".join(tr) or "none") if tr is not None else _val(d.get("throttle_reasons"))))
    pw = v("power")
    temp = v("temperature")
    rows.append(
        (
            "temp / power",
            f"{'-' if temp is None else f'{temp} °C'}, "
            + (f"{pw['usage_w']:.0f} of {pw['limit_w'] or 0:.0f} W" if pw else _val(d.get("power"))),
        )
    )
    pc = v("pcie")
    rows.append(
        (
            "PCIe",
            f"gen {pc.get('gen')} x{pc.get('width')} (max gen {pc.get('max_gen')} x{pc.get('max_width')})"
            if pc
            else _val(d.get("pcie")),
        )
    )
    return rows


def _device_lines(d: Mapping[str, Any]) -> list[tuple[str, str]]:
    return _usage_rows(d) + _memory_health_rows(d) + _clock_power_rows(d)


def render_text(snap: Mapping[str, Any], out: TextIO) -> None:
    w = out.write
    w(f"kdiag env  {snap.get('taken_at', '')}  (snapshot took {snap.get('took_s', 0):.3f} s)\n\n")
    nv = snap["nvml"]
    w(f"NVML         {nv.get('source')}\n")
    init = nv["init"]
    if not init.get("ok"):
        w(f"  nvmlInit   FAILED: {init.get('error')} ({init.get('code')}): {init.get('message')}\n")
    else:
        w(
            f"  driver     {_val(nv.get('driver_version'))}, CUDA driver API {_val(nv.get('cuda_driver_version'))}, "
            f"{_val(nv.get('device_count'))} GPU(s)\n"
        )
    for d in nv.get("devices", []):
        w(
            f"\nGPU {d['index']}  {_val(d.get('name'))}  {_val(d.get('arch'))} (cc {_val(d.get('compute_capability'))})  "
            f"{_val(d.get('uuid'))}  {_val(d.get('pci_bus_id'))}\n"
        )
        for k, text in _device_lines(d):
            w(f"  {k:<14} {text}\n")
    sw = snap["software"]
    w("\nSoftware\n")
    py = sw.get("python", {}).get("value") or {}
    rows = [("python", f"{py.get('version')} {py.get('executable')}")]
    t = sw.get("torch", {})
    if t.get("version", {}).get("value"):
        cuda = t.get("cuda", {}).get("value")
        archs = t.get("arch_list", {}).get("value")
        arch_text = _val(t.get("arch_list")) if archs is None else (" ".join(archs) or "none")
        pin = t.get("triton_pin", {}).get("value")
        rows.append(
            (
                "torch",
                f"{_val(t.get('version'))}, CUDA {cuda or 'none (CPU build)'}, arch list {arch_text}"
                + (f", pins {pin}" if pin else ""),
            )
        )
    else:
        rows.append(("torch", _val(t.get("version"))))
    tr = sw.get("triton", {})
    rows.append(("triton", _val(tr.get("version")) + (f", ptxas {_val(tr.get('ptxas'))}" if "ptxas" in tr else "")))
    for key, label in (("nvcc", "nvcc"), ("ptxas", "ptxas"), ("compute_sanitizer", "compute-sanitizer")):
        f = sw.get(key, {})
        val = f.get("value")
        rows.append((label, f"{val.get('version')} {val.get('path')}" if val else _val(f)))
    rt = sw.get("cuda_runtime", {})
    rv = rt.get("value")
    rows.append(
        ("CUDA runtime", f"{rv['version'] // 1000}.{rv['version'] % 1000 // 10} ({rv['path']})" if rv else _val(rt))
    )
    for name, f in sw.get("libraries", {}).items():
        rows.append((name, f.get("value") or "not found"))
    pk = sw.get("packages", {})
    rows.append(("packages", ", ".join(f"{n} {f.get('value')}" for n, f in pk.items()) or "-"))
    for k, text in rows:
        w(f"  {k:<18} {text}\n")
    env_set = snap.get("env", {}).get("set", {})
    w("\nEnvironment (variables that change CUDA/torch/triton behaviour)\n")
    shown = {k: v for k, v in env_set.items() if k != "PATH"}
    for k, v in shown.items():
        w(f"  {k}={v}\n")
    if not shown:
        w("  none set\n")
    fs = findings(snap)
    w("\nFindings\n")
    for f in fs:
        w(f"  {f.tag:<32} {f.detail}\n")
    if not fs:
        w("  none\n")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kdiag env",
        description="What kdiag sees of this machine: NVML, the software stack, "
        "the environment, and what is wrong with them.",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--probe-torch",
        action="store_true",
        help="ask a child python for torch's CUDA arch list (imports torch: seconds)",
    )
    p.add_argument("--replay", metavar="FILE", help="read NVML from a recording instead of the library")
    p.add_argument("--record-nvml", metavar="FILE", help="also write every NVML answer to FILE (a test fixture)")
    return p


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage
        return int(e.code or 0)
    source: NvmlSource
    if args.replay:
        try:
            source = ReplayNvml.from_file(args.replay)
        except (OSError, ValueError) as e:
            print(f"kdiag env: cannot read {args.replay}: {e}", file=sys.stderr)
            return 2
    else:
        source = LiveNvml()
    recorder = (
        RecordingNvml(source, provenance={"how": "captured", "command": "kdiag env --record-nvml"})
        if args.record_nvml
        else None
    )
    snap = snapshot(nvml=recorder or source, probe_torch=args.probe_torch)
    if recorder is not None:
        rec = recorder.recording()
        rec["provenance"].update(
            source=source.label,
            platform=platform.platform(),
            driver_version=snap["nvml"].get("driver_version", {}).get("value"),
            gpus=[d.get("name", {}).get("value") for d in snap["nvml"].get("devices", [])],
            taken_at=snap["taken_at"],
        )
        Path(args.record_nvml).write_text(json.dumps(rec, indent=2) + "\n")
    try:
        if args.format == "json":
            json.dump(report(snap), out, indent=2)
            out.write("\n")
        else:
            render_text(snap, out)
        out.flush()
    except BrokenPipeError:  # `kdiag env | head`: the reader has what it wanted
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
