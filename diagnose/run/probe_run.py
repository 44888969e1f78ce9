"""After the declared run: the probes (inputs outside the contract, :mod:`diagnose.run.probes`) through
the same children, the verdict they change, and the shrunk failing input with its repro."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from diagnose import facts as F
from diagnose.run import checker
from diagnose.run import children as K
from diagnose.run import compare as C
from diagnose.run import probes as P
from diagnose.run.context import RunContext
from diagnose.run.result import KdiagError
from diagnose.runner import Outcome

KERNEL_TRIES = 3  # a fresh kernel child continues after one that crashed or hung, this many in all


def probe_verdict(declared: str, matrix: P.Matrix | None) -> str:
    """The run's verdict once the probes are in: a failure inside the contract (a declared size, another
    seed or a repeat at one) is ``fail``; declared sizes that pass with a probe that fails, ``assumption``."""
    if declared != "pass" or matrix is None:
        return declared
    if P.contract_failed(matrix):
        return "fail"
    return "assumption" if P.assumption_failed(matrix) else "pass"


#: what a failed probe of each kind means for a caller, in the note a harness-contract run gives
BEYOND = {
    "noncontiguous": "non-contiguous inputs",
    "misaligned": "inputs that start off alignment (a view one element into a buffer)",
    "nonmultiple": "sizes that are not a multiple of its block",
    "size-one": "size-one inputs",
    "empty": "empty inputs",
    "dtype": "other dtypes",
    "large": "large-magnitude inputs",
}


def harness_contract(ctx: RunContext, verdict: str, matrix: P.Matrix | None) -> str:
    """KernelBench and GPU MODE: the contract is what the harness generates.  Declared sizes that pass with
    a probe beyond it that fails pass, with a note per kind ("would also fail on non-contiguous inputs,
    which the harness never produces"); a failure inside the contract (a seed, a repeat) stays ``fail``."""
    if verdict != "assumption" or not ctx.target.harness_contract or matrix is None:
        return verdict
    kinds = dict.fromkeys(r.probe.kind for r in matrix.failures if not r.probe.contract)
    for kind in kinds:
        labels = ", ".join(r.probe.label for r in matrix.failures if r.probe.kind == kind)
        ctx.log.note(
            f"would also fail on {BEYOND.get(kind, kind + ' probes')}, which the harness never produces ({labels})"
        )
    return "pass"


def shrink_and_repro(
    ctx: RunContext, manifest: Mapping[str, Any], sizes: list[C.SizeResult], matrix: P.Matrix | None, verdict: str
) -> Any:
    """The failing input, shrunk when --shrink asks (diagnose/run/shrink.py), and repro.py for it."""
    if verdict not in ("fail", "assumption"):
        return None
    from diagnose.run import shrink

    clean = set(clean_sizes(ctx, sizes))
    dirty = [s.label for s in sizes if s.ok and s.label not in clean]
    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)
    try:
        return shrink.after_run(
            ctx.target, manifest, sizes, matrix, ctx.rd, seed=ctx.opts.seed, do_shrink=ctx.opts.shrink,
            device=ctx.device, runner=lambda name, entries: run_entries(ctx, name, entries), tolerance=tol,
            dirty=dirty, notes=ctx.log.notes,
        )  # fmt: skip
    except KdiagError:
        raise
    except Exception as e:  # the diagnosis stands without a repro
        ctx.log.note(f"shrink/repro failed: {type(e).__name__}: {e}")
        return None


def probe_timeout(ctx: RunContext) -> float | None:
    """A probe child may take ten times the plain run, at least a minute, never more than --timeout."""
    plain = ctx.log.rungs[0].duration_s if ctx.log.rungs else 30.0
    limit = max(60.0, 10.0 * plain)
    return min(limit, ctx.opts.timeout) if ctx.opts.timeout else limit


def _why_not(ctx: RunContext, sizes: list[C.SizeResult], facts: F.RunFacts) -> str | None:
    plain = ctx.log.rungs[0] if ctx.log.rungs else None
    if plain is None or plain.timed_out:
        return "the declared run timed out"
    if plain.signal:
        return f"the declared run was killed by {plain.signal}"
    if facts.reference_failed:
        return "the reference failed at a declared size"
    if not sizes or all(s.missing for s in sizes):
        return "the declared run left no result"
    return None


def probe_matrix(
    ctx: RunContext, manifest: Mapping[str, Any], sizes: list[C.SizeResult], facts: F.RunFacts
) -> P.Matrix | None:
    level = ctx.opts.probes
    if level == "none":
        return None
    why = _why_not(ctx, sizes, facts)
    if why:
        ctx.log.note(f"probes not run: {why}")
        return None
    interpreter = ctx.target.uses_triton and not ctx.gpu
    probes = P.derive(manifest, level, seed=ctx.opts.seed, passed=clean_sizes(ctx, sizes), interpreter=interpreter)
    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)
    matrix = P.run_matrix(probes, lambda name, entries: run_entries(ctx, name, entries), level, tol)
    matrix.write(ctx.rd / "probes.json")
    return matrix


def clean_sizes(ctx: RunContext, sizes: list[C.SizeResult]) -> list[str]:
    """Declared sizes that matched with no out-of-bounds access or canary hit (the plain rung's records)."""
    folder = ctx.rd / ctx.log.rungs[0].dir if ctx.log.rungs else None
    result = K.read_json(ctx, folder / "result.json", "plain result") if folder else None
    dirty = {
        str(r.get("label"))
        for r in (result or {}).get("sizes", [])
        if isinstance(r, Mapping) and (r.get("oob") or r.get("canary"))
    }
    return [s.label for s in sizes if s.ok and s.label not in dirty]


def _child_row(name: str, o: Outcome) -> dict[str, Any]:
    return {"name": name, "exit": o.exit_code, "signal": o.signal, "timed_out": o.timed_out,
            "seconds": round(o.duration_s, 3)}  # fmt: skip


def run_entries(ctx: RunContext, name: str, entries: Sequence[Mapping[str, Any]]) -> P.Batch:
    """Run probe entries (sizes, seeds, value changes, layouts) through one inputs child (the reference runs in it,
    once the inputs are saved) and kernel children: a fresh kernel child continues after one that crashed or hung."""
    t0 = time.monotonic()
    base = ctx.rd / name
    inputs = base / "inputs"
    timeout = probe_timeout(ctx)
    rows: list[dict[str, Any]] = []
    o_in = K.inputs_and_reference(ctx, base / "children" / "inputs", base / "reference", timeout=timeout,
                                  inputs_dir=str(inputs), out_dir=str(inputs), probes=list(entries))  # fmt: skip
    rows.append(_child_row("inputs and reference", o_in))
    manifest = K.read_json(ctx, inputs / "manifest.json", f"{name} inputs manifest")
    if manifest is None:
        why = "the probe inputs child wrote no manifest" + (" (timed out)" if o_in.timed_out else "")
        manifest = {"sizes": [{"label": e.get("label"), "error": why} for e in entries]}
        return P.Batch(manifest, {}, {}, base / "reference", tuple(rows), {}, time.monotonic() - t0)
    got = K.reference_manifest(ctx, base / "reference", manifest, o_in, f"{name} reference manifest")
    records, lost = _kernel_children(ctx, name, manifest, timeout, rows)
    by_label = {str(r.get("label")): r for r in got.get("sizes", []) if isinstance(r, Mapping)}
    return P.Batch(manifest, records, by_label, base / "reference", tuple(rows), lost, time.monotonic() - t0)


def _kernel_children(
    ctx: RunContext, name: str, manifest: Mapping[str, Any], timeout: float | None, rows: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The kernel children over the probe entries: (records by label, why each lost entry has none)."""
    base = ctx.rd / name
    inputs = base / "inputs"
    records: dict[str, dict[str, Any]] = {}
    lost: dict[str, str] = {}
    todo = [e for e in manifest.get("sizes", []) if isinstance(e, Mapping) and not e.get("error")]
    for attempt in range(KERNEL_TRIES):
        if not todo:
            break
        sub = f"manifest-k{attempt}.json"
        (inputs / sub).write_text(json.dumps({**manifest, "sizes": todo}, indent=1))
        folder = base / f"kernel-{attempt}"
        _, o = K.child(ctx, "kernel", folder, timeout=timeout, inputs_dir=str(inputs), out_dir=str(folder),
                       manifest=sub, repeat=1)  # fmt: skip
        rows.append(_child_row(f"kernel-{attempt}", o))
        result = K.read_json(ctx, folder / "result.json", f"{name} kernel-{attempt} result") or {}
        checks = checker.run_on(ctx, folder, inputs, sub, timeout) if result.get("sizes") else {}
        for rec in result.get("sizes", []):
            if isinstance(rec, dict) and "label" in rec:
                label = str(rec["label"])
                records[label] = {
                    **rec,
                    "_folder": str(folder),
                    **({"check": checks[label]} if label in checks else {}),
                }
        missing = [e for e in todo if str(e.get("label")) not in records]
        if missing and not result.get("done"):
            # the child died at the first entry it left no record for: that probe crashed (or hung) it
            how = "timed out" if o.timed_out else (o.signal or f"exit {o.exit_code}")
            lost[str(missing[0].get("label"))] = f"the kernel child died here ({how})"
            missing = missing[1:]
        todo = missing
    for e in todo:
        lost[str(e.get("label"))] = "not run: the kernel children kept dying"
    return records, lost
