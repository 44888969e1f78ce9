"""Accumulation precision, run side: the static look at the kernel's accumulator
(:mod:`diagnose.run.accumulator`) and, when a declared size failed like a narrow accumulator, the
reduction-length sweep (:mod:`diagnose.run.accum_sweep`) through the probe children.  Both add facts
to the evidence; the rules decide (``rules/numerics/numerics-run-accumulation-precision.yaml``,
``numerics-run-narrow-accumulator.yaml``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from diagnose import facts as F
from diagnose.evidence import Evidence
from diagnose.run import accum_sweep as W
from diagnose.run import accumulator as AC
from diagnose.run import assemble as A
from diagnose.run import compare as C
from diagnose.run import runfacts as R
from diagnose.run.context import RunContext


def static_facts(ctx: RunContext) -> dict[str, Any]:
    """The first narrow accumulator in the target's source, as run facts (empty when there is none)."""
    path = ctx.target.path
    if path is None:
        return {}
    found = AC.scan(path)
    if not found:
        return {}
    a = found[0]
    return {
        "narrow_accumulator": a.dtype,
        "narrow_accumulator_var": a.var,
        "narrow_accumulator_line": a.line,
        "narrow_accumulator_code": a.code[:160],
        "narrow_accumulator_how": a.how,
    }


def candidate_note(facts: Mapping[str, Any]) -> str | None:
    """What the report says of a narrow accumulator the run did not confirm (it may be deliberate)."""
    if not facts.get("narrow_accumulator"):
        return None
    return (
        f"static check: a {facts['narrow_accumulator']} accumulator `{facts['narrow_accumulator_var']}` (line "
        f"{facts['narrow_accumulator_line']}: {facts['narrow_accumulator_code']}), {facts['narrow_accumulator_how']}; "
        "a candidate only: long reductions lose precision in it, and nothing here showed that it does"
    )


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2g}"


def sweep(ctx: RunContext, manifest: Mapping[str, Any], sizes: list[C.SizeResult], ev: Evidence) -> Evidence:
    """Run the sweep when the failure looks like accumulation with one reduction length; the evidence with
    its facts (unchanged when it does not apply)."""
    if not W.looks_like_accumulation(ev.numerics, ev.run):
        return ev
    if ctx.opts.ladder == "none":
        return A.with_run(ev, accum_sweep_skipped="--ladder none: no re-run at a shorter reduction")
    p = W.plan(manifest, sizes, reference=ctx.target.reference)
    base = next((s for s in sizes if s.label == p.base), None)
    if p.why_not or p.param is None or base is None:
        why = p.why_not or "no failing size to shorten"
        ctx.log.note(f"accumulation sweep not run: {why}")
        return A.with_run(ev, accum_sweep_skipped=why)
    from diagnose.run.probe_run import run_entries

    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)
    try:
        batch = run_entries(ctx, "accum-sweep", p.entries(seed=ctx.opts.seed))
    except Exception as e:  # the diagnosis stands without the sweep
        ctx.log.note(f"accumulation sweep failed: {type(e).__name__}: {e}")
        return A.with_run(ev, accum_sweep_skipped=f"the sweep's children failed: {type(e).__name__}")
    points = W.judge(p, batch, base, tol)
    W.write(ctx.rd / "accum-sweep.json", W.record(p, points, base))
    for pt in points:
        if pt.problem:
            ctx.log.note(f"accumulation sweep at {pt.label}: {pt.problem}")
    good = [pt for pt in points if pt.result is not None and pt.problem is None]
    if not good:
        return A.with_run(
            ev, accum_sweep_param=p.param, accum_sweep_skipped="no shortened run gave a comparable output"
        )
    results = [pt.result for pt in good if pt.result is not None]
    growth, lens = R.error_growth([*results, base])
    rels = [pt.result.leaves[0].median_rel if pt.result else None for pt in good] + [base.leaves[0].median_rel]
    values = (*(pt.length for pt in good), int(p.value or 0))
    told = ", ".join(f"{p.param}={v}: median rel {_fmt(r)}" for v, r in zip(values, rels, strict=True))
    ctx.log.note(
        f"accumulation sweep ({p.param} is the reduction length of {p.base}): {told}"
        + (f"; the error grows {growth:.3g}x from the shortest to the declared length" if growth else "")
    )
    changes: dict[str, Any] = {"reduction_lens": lens}
    if growth is not None and ev.numerics is not None:
        grows = ev.numerics.error_grows or growth >= R.GROWTH_MIN
        changes.update(error_growth=growth, error_grows=grows)
    numerics = dataclasses.replace(ev.numerics, **changes) if ev.numerics is not None else None
    run = ev.run or F.RunFacts()
    run = dataclasses.replace(
        run,
        accum_sweep_param=p.param,
        accum_sweep_values=values,
        accum_sweep_median_rel=tuple(float(f"{r or 0.0:.3g}") for r in rels),
    )
    return ev.replace(run=run, numerics=numerics)
