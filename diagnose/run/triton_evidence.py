"""``triton_checks.json`` (written in the kernel child by ``harness.triton_hooks``) → RunFacts fields.

The child watched every ``@triton.jit`` launch: it bounds-checked the interpreter's loads and
stores against the launch's tensor arguments, compiled each distinct launch for the target GPU,
and (when the runner guarded the inputs with ``harness.canary``) checked the guard regions.  This
module only reads the JSON it left (no torch, no triton: the parent never imports them) and says
what it means as ``RunFacts`` fields, plus the texts the orchestration feeds to the Triton and
compiler collectors (``compile_errors``: tracebacks as Triton printed them, and the
``OutOfResources`` line the launcher raises on a GPU whose shared memory is too small;
``ptxas_logs``: ptxas ``-v`` output of the compiles that succeeded).

Launches made while ``@triton.autotune`` was benchmarking configs are kept out of
``compile_failed`` and ``compiled_shared_bytes`` unless every launch of that kernel was such a
trial: on a GPU the autotuner skips a config that fails to compile or does not fit.

>>> import json, tempfile, pathlib
>>> d = {"schema": 1, "interpreter": True, "target_gpu": "H100", "target_arch": "sm_90",
...      "smem_limit_bytes": 232448, "calls": 2,
...      "launches": [{"kernel": "k", "autotune_trial": False, "compile": {"ok": True, "shared": 262144,
...                    "registers": 128, "spill_stores": 0, "spill_loads": 0,
...                    "launch_error_text": "triton.runtime.errors.OutOfResources: out of resource: ..."}}],
...      "oob": [{"kernel": "k", "kind": "store", "arg": "out_ptr", "ops": 1, "first_distance_elems": 24,
...               "order": 0}]}
>>> p = pathlib.Path(tempfile.mkdtemp()) / "triton_checks.json"
>>> _ = p.write_text(json.dumps(d))
>>> f = read(p)
>>> f["oob_stores"], f["oob_kernel"], f["oob_distance_elems"], f["compiled_shared_bytes"], f["smem_limit_bytes"]
(1, 'k', 24, 262144.0, 232448.0)
>>> f["compile_failed"], f["launches"], f["compile_errors"][0].split(":")[0]
(False, 2, 'triton.runtime.errors.OutOfResources')
>>> read(p.parent / "missing.json")
{}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA = 1
FILE_NAME = "triton_checks.json"
#: keys of ``read``'s result that are not RunFacts fields (texts for the collectors, notes)
EXTRA_KEYS = ("compile_errors", "ptxas_logs", "oob_records", "canaries", "notes")
MAX_BYTES = 16 * 1024 * 1024  # a checks file is a few KiB; never load an unbounded one


def load(path: Path) -> dict[str, Any] | None:
    """The checks file as written, or None when it is missing, too large, not JSON or another schema."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    return data


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _records(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = data.get(key)
    return [r for r in items if isinstance(r, dict)] if isinstance(items, list) else []


def read(path: Path) -> dict[str, object]:
    """RunFacts fields (and ``EXTRA_KEYS``) from ``triton_checks.json``; ``{}`` when it says nothing.

    Fields: ``interpreter``, ``target_gpu``, ``target_arch``, ``launches`` (calls of ``@jit``
    kernels), ``oob_loads`` / ``oob_stores`` (load / store-or-atomic operations with a lane outside
    its argument), ``oob_kernel`` and ``oob_distance_elems`` (the first out-of-bounds access: its
    kernel, and how far past the end of its argument its farthest lane was, in elements; negative:
    before the start), ``compiled_shared_bytes`` (largest ``metadata.shared``),
    ``smem_limit_bytes`` (the target's opt-in limit), ``compiled_registers`` (largest ptxas
    count), ``compiled_spills`` (largest spill stores + loads, bytes), ``compile_failed``,
    ``canary_corrupted`` / ``canary_tensor``.
    """
    data = load(path)
    if data is None:
        return {}
    out: dict[str, object] = {}
    notes: list[str] = []

    out["interpreter"] = bool(data.get("interpreter"))
    for key in ("target_gpu", "target_arch"):
        if isinstance(data.get(key), str):
            out[key] = data[key]
    limit = _int(data.get("smem_limit_bytes"))
    if limit is not None:
        out["smem_limit_bytes"] = float(limit)
    out["launches"] = _int(data.get("calls")) or 0

    out.update(_bounds(data))
    out.update(_compiles(data, notes))
    out.update(_canaries(data))
    if not data.get("finished"):
        notes.append("the child stopped before triton_hooks.finish(): the checks cover what ran until then")
    errs = data.get("hook_errors")
    if isinstance(errs, list) and errs:
        notes.append(f"{len(errs)} hook error(s) in the child")
    out["notes"] = tuple(notes)
    return out


def run_fields(facts: dict[str, object]) -> dict[str, object]:
    """``read``'s result without ``EXTRA_KEYS``: what goes into ``RunFacts(**...)``.

    >>> run_fields({"oob_loads": 1, "compile_errors": ("x",)})
    {'oob_loads': 1}
    """
    return {k: v for k, v in facts.items() if k not in EXTRA_KEYS}


def _bounds(data: dict[str, Any]) -> dict[str, object]:
    """The bounds checks: out-of-bounds loads and stores, the first one's kernel and distance."""
    out: dict[str, object] = {}
    oob = _records(data, "oob")
    loads = sum(_int(r.get("ops")) or 0 for r in oob if r.get("kind") == "load")
    stores = sum(_int(r.get("ops")) or 0 for r in oob if r.get("kind") in ("store", "atomic"))
    out["oob_loads"], out["oob_stores"] = loads, stores
    if oob:
        first = min(oob, key=lambda r: _int(r.get("order")) or 0)
        if isinstance(first.get("kernel"), str):
            out["oob_kernel"] = first["kernel"]
        dist = _int(first.get("first_distance_elems"))
        if dist is not None:
            out["oob_distance_elems"] = dist
        out["oob_records"] = tuple(oob)
    overlap = _records(data, "overlap")
    if overlap:
        first = overlap[0]
        out["store_overlap_elems"] = max(_int(r.get("elems")) or 0 for r in overlap)
        out["store_overlap_differ_elems"] = max(_int(r.get("differ_elems")) or 0 for r in overlap)
        if isinstance(first.get("arg"), str):
            out["store_overlap_arg"] = first["arg"]
        if isinstance(first.get("kernel"), str):
            out["store_overlap_kernel"] = first["kernel"]
        programs = first.get("programs")
        if isinstance(programs, list) and len(programs) == 2 and all(isinstance(p, list) for p in programs):
            a, b = (str(tuple(p)) for p in programs)
            out["store_overlap_programs"] = f"two lanes of program {a}" if a == b else f"programs {a} and {b}"
    return out


def _compiles(data: dict[str, Any], notes: list[str]) -> dict[str, object]:
    """The compiles for the target: shared memory, registers, spills, errors and ptxas logs."""
    out: dict[str, object] = {}
    launches = _records(data, "launches")
    compiles: list[tuple[dict[str, Any], dict[str, Any]]] = [
        (rec, rec["compile"]) for rec in launches if isinstance(rec.get("compile"), dict)
    ]
    real_kernels = {rec.get("kernel") for rec, _ in compiles if not rec.get("autotune_trial")}
    counted = [
        (rec, c) for rec, c in compiles if not rec.get("autotune_trial") or rec.get("kernel") not in real_kernels
    ]
    skipped = len(compiles) - len(counted)
    if skipped:
        notes.append(f"{skipped} autotuner trial compile(s) not counted")

    shared = [s for _, c in counted if c.get("ok") and (s := _int(c.get("shared"))) is not None]
    if shared:
        out["compiled_shared_bytes"] = float(max(shared))
    regs = [r for _, c in counted if (r := _int(c.get("registers"))) is not None]
    if regs:
        out["compiled_registers"] = max(regs)
    spills = [(_int(c.get("spill_stores")) or 0) + (_int(c.get("spill_loads")) or 0) for _, c in counted]
    out["compiled_spills"] = max(spills, default=0)
    out["compile_failed"] = any(c.get("ok") is False for _, c in counted)

    errors: list[str] = []
    logs: list[str] = []
    for _, c in counted:
        for key in ("error_text", "launch_error_text"):
            text = c.get(key)
            if isinstance(text, str) and text.strip() and text not in errors:
                errors.append(text)
        if c.get("ok") and isinstance(c.get("log"), str) and c["log"].strip():
            logs.append(c["log"])
    out["compile_errors"] = tuple(errors)
    out["ptxas_logs"] = tuple(logs)
    return out


def _canaries(data: dict[str, Any]) -> dict[str, object]:
    """The canary guards around runner-made inputs."""
    out: dict[str, object] = {}
    canaries = _records(data, "canaries")
    if canaries:
        out["canary_corrupted"] = True
        name = canaries[0].get("name")
        if isinstance(name, str):
            out["canary_tensor"] = name
        out["canaries"] = tuple(canaries)
    return out
