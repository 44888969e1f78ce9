"""The problem's own checker decides: GPU MODE's ``check_implementation`` (trusted code from the
reference, run by ``harness.check`` in a child of its own) over kdiag's comparison.

kdiag's comparison stays as evidence (where the outputs differ, by how much); the checker's answer is
the verdict at each size it judged: a correct submission whose reference returns float64 passes
under the problem's own tolerances, and an output the checker rejects fails even when kdiag's
tolerances would let it through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from diagnose.run import children as K
from diagnose.run import compare as C
from diagnose.run.context import RunContext


def apply(ctx: RunContext, folder: Path, sizes: list[C.SizeResult]) -> list[C.SizeResult]:
    """Run the checker on the outputs under ``folder`` (a kernel rung's); the sizes as it judges them."""
    ran = [s for s in sizes if not s.missing and s.kernel_error is None and s.reference_error is None]
    if not ctx.target.checker or not ran:
        return sizes
    _, outcome = K.child(ctx, "check", folder / "check-child", out_dir=str(folder))
    got = K.read_json(ctx, folder / "check.json", "check_implementation result")
    if got is None:
        ctx.log.note(f"check_implementation wrote no result (exit {outcome.exit_code}): kdiag's comparison stands")
        return sizes
    by_label = {str(r.get("label")): r for r in got.get("sizes", []) if isinstance(r, Mapping)}
    out = []
    for s in sizes:
        row = by_label.get(s.label)
        out.append(s if row is None else C.checked(s, row))
        if row is not None and not row.get("good") and not row.get("error"):
            ctx.log.note(f"check_implementation rejected {s.label}: {str(row.get('message') or '')[:200]}")
    ctx.log.note("correctness decided by the problem's own check_implementation (its tolerances)")
    return out


def run_on(ctx: RunContext, folder: Path, inputs: Path, manifest: str, timeout: float | None) -> dict[str, Mapping]:
    """The checker over a probe batch's kernel child (``folder``): its rows by label (none without a checker)."""
    if not ctx.target.checker:
        return {}
    K.child(ctx, "check", folder / "check-child", timeout=timeout, inputs_dir=str(inputs), out_dir=str(folder),
            manifest=manifest)  # fmt: skip
    got = K.read_json(ctx, folder / "check.json", "check_implementation result (probes)") or {}
    return {str(r.get("label")): r for r in got.get("sizes", []) if isinstance(r, Mapping)}


#: at a size a task's benchmarks added, a failed check counts when more than this share of an output's elements
#: (and more than BENCHMARK_FEW of them) is off, or any is NaN, infinite or unwritten: the checker's tolerance was set
#: for its tests' sizes, and a longer reduction moves a correct kernel's rounding past it on a few elements
BENCHMARK_GROSS = 0.01
BENCHMARK_FEW = 4


def benchmark_margins(
    ctx: RunContext, manifest: Mapping[str, Any] | None, sizes: list[C.SizeResult]
) -> list[C.SizeResult]:
    """The sizes with a failure at a benchmark-added size (:func:`diagnose.run.targets.benchmark_sizes`) that is only
    a few elements past the checker's tolerance taken as passed, and said in a note; everything else as it was."""
    bench = ctx.target.benchmarks
    if not bench or ctx.opts.sizes or not manifest:
        return sizes
    added = {
        str(m.get("label")) for m in manifest.get("sizes", []) if isinstance(m, Mapping) and m.get("size") in bench
    }
    out = []
    for s in sizes:
        marginal = (
            s.label in added
            and not s.ok
            and not s.missing
            and s.kernel_error is None
            and s.reference_error is None
            and s.invalid is None
            and not s.unwritten
            and bool(s.leaves)
            and all(
                leaf.ok
                or (
                    leaf.total > 0
                    and leaf.mismatched <= max(BENCHMARK_GROSS * leaf.total, BENCHMARK_FEW)
                    and not leaf.nan_count
                    and not leaf.inf_count
                )
                for leaf in s.leaves
            )
        )
        if marginal:
            off = sum(leaf.mismatched for leaf in s.leaves if not leaf.ok)
            ctx.log.note(
                f"at {s.label}, a size from the task's benchmarks, {off} element(s) fall outside the checker's "
                "tolerance, which was set for its tests' sizes: counted as passed (a longer reduction's rounding); "
                "a GPU run of the benchmark decides"
            )
            s = replace(s, ok=True)
        out.append(s)
    return out
