"""The facts builder: what the children left (outcomes, records, comparisons) → the facts rules read.

Pure functions: nothing here runs a child, writes a file or records a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from diagnose import facts as F
from diagnose.evidence import Evidence
from diagnose.matcher import Diagnosis
from diagnose.run import ladder as L
from diagnose.run.compare import LeafResult, SizeResult
from diagnose.run.context import RunContext
from diagnose.runner import Outcome


def base_facts(ctx: RunContext, **kw: Any) -> F.RunFacts:
    return F.RunFacts(
        target=ctx.target.kind,
        gpu_present=ctx.gpu,
        device=ctx.device,
        interpreter=ctx.target.uses_triton and not ctx.gpu,
        target_gpu=ctx.target_gpu,
        target_arch=ctx.target_arch,
        **kw,
    )


def kernel_facts(
    ctx: RunContext, manifest: Mapping[str, Any], result: Mapping[str, Any] | None, sizes: list[SizeResult], **kw: Any
) -> tuple[F.RunFacts, F.NumericsFacts | None]:
    declared = tuple(str(s.get("label")) for s in manifest.get("sizes", []))
    failed = tuple(s.label for s in sizes if not s.ok and not s.missing and not s.reference_error)
    missing = tuple(s.label for s in sizes if s.missing)
    mutated = tuple(dict.fromkeys(m for s in sizes for m in s.mutated))
    first_unwritten = next((s for s in sizes if s.unwritten), None)
    unwritten_elems = sum(int(u.get("count", 0)) for s in sizes for u in s.unwritten.values())
    u_fraction = u_pattern = None
    if first_unwritten is not None:
        us = list(first_unwritten.unwritten.values())
        total = sum(int(u.get("total", 0)) for u in us) or 1
        u_fraction = sum(int(u.get("count", 0)) for u in us) / total
        patterns = {str(u.get("where")) for u in us}
        u_pattern = patterns.pop() if len(patterns) == 1 else "scattered"
    bad_leaf = next((leaf for s in sizes for leaf in s.leaves if not leaf.ok), None)
    canary = [c for c in (result or {}).get("canary", []) or [] if isinstance(c, Mapping)]
    canary_name = next(
        (str(c.get("name") or c.get("tensor")) for c in canary if c.get("name") or c.get("tensor")), None
    )
    invalid = next((s.invalid for s in sizes if s.invalid), None)
    facts = base_facts(
        ctx,
        result_missing=bool(missing),
        result_invalid=invalid,
        inputs_mutated=bool(mutated),
        mutated_inputs=mutated,
        output_unwritten=unwritten_elems > 0,
        unwritten_elems=unwritten_elems,
        unwritten_fraction=u_fraction,
        unwritten_pattern=u_pattern,
        canary_corrupted=bool(canary),
        canary_tensor=canary_name,
        sizes_declared=declared,
        sizes_failed=failed,
        sizes_missing=missing,
        exact_fraction=(bad_leaf.exact / bad_leaf.total) if bad_leaf and bad_leaf.total else None,
        values_permuted=bool(bad_leaf and bad_leaf.permuted),
        kernel_raised=any(s.kernel_error for s in sizes),
        reference_failed=any(s.reference_error for s in sizes),
        **kw,
    )
    return facts, numerics_facts(sizes)  # None when nothing compared; diagnose/run/numerics.py


GROWTH_MIN = 2.0  # error ratio (longest reduction / shortest) that counts as growing
GROWTH_POSITION_MIN = 2.0  # along the last axis: the last quarter against the first (sqrt growth: ~2.6)


def _reduction_len(s: SizeResult, leaf: LeafResult) -> int | None:
    if s.input_elems is None or not leaf.total:
        return None
    return max(1, round(s.input_elems / leaf.total))


def error_growth(sizes: tuple[SizeResult, ...] | list[SizeResult]) -> tuple[float | None, tuple[int, ...]]:
    """Median relative error (+ half a ULP) at the longest reduction / at the shortest, over sizes whose first
    output compares; None unless two sizes' reduction lengths differ by 2x or more."""
    from diagnose.run import numerics as N

    points = []
    for s in sizes:
        leaf = s.leaves[0] if s.leaves else None
        if leaf is None or leaf.shape_mismatch or leaf.dtype_mismatch:
            continue
        n = _reduction_len(s, leaf)
        if n is not None and leaf.median_rel is not None:
            # half a ULP of the dtype added: an exact small size does not make any error "infinite growth"
            points.append((n, leaf.median_rel + 2.0 ** -N.SIGNIFICAND_BITS.get(leaf.dtype or "", 53)))
    lens = tuple(sorted({n for n, _ in points}))
    if len(lens) < 2 or lens[-1] < 2 * lens[0]:
        return None, lens
    lo = [e for n, e in points if n == lens[0]]
    hi = [e for n, e in points if n == lens[-1]]
    return round(max(hi) / min(lo), 3), lens


SCALE_MATCH = 2e-3  # relative distance of a factor from a count ratio that still reads as that ratio


def padded_reading(scale: float | None, label: str) -> str | None:
    """``scale`` read as a size of ``label`` counted as its padded block: P/N, N/P or their square roots, where
    N is a figure of the size and P the next multiple of a power-of-two block (16..1024) or the next power of two.

    >>> padded_reading(1.1547, "rows=32,cols=768")
    'sqrt(1024/768): cols=768 counted as 1024'
    >>> padded_reading(0.75, "n=768")
    '768/1024: n=768 counted as 1024'
    >>> padded_reading(1.1547, "rows=32,cols=1024") is None
    True
    """
    import math

    from diagnose.run import numerics as N
    from diagnose.run.probe_types import label_size

    if scale is None or scale <= 0:
        return None
    for name, n in label_size(label).items():
        if n < 2:
            continue
        padded = {-(-n // b) * b for b in N.TAIL_BLOCKS} | {1 << (n - 1).bit_length()}
        for p in sorted(padded - {n}):
            for value, form in ((p / n, f"{p}/{n}"), (n / p, f"{n}/{p}"), (math.sqrt(p / n), f"sqrt({p}/{n})"),
                                (math.sqrt(n / p), f"sqrt({n}/{p})")):  # fmt: skip
                if abs(scale - value) <= SCALE_MATCH * value:
                    return f"{form}: {name}={n} counted as {p}"
    return None


def numerics_facts(sizes: tuple[SizeResult, ...] | list[SizeResult]) -> F.NumericsFacts | None:
    """The ``numerics`` facts of a run: the first failing output's figures (or, when all pass, the largest)."""
    compared = [leaf for s in sizes for leaf in s.leaves]
    if not compared:
        return None
    bad_leaf = next((leaf for leaf in compared if not leaf.ok), None)
    worst = bad_leaf or max(compared, key=lambda x: (x.max_ulp or 0.0, x.max_abs or 0.0))
    growth, lens = error_growth(sizes)
    gp = worst.growth_position
    grows = bool((growth is not None and growth >= GROWTH_MIN) or (gp is not None and gp >= GROWTH_POSITION_MIN))
    differs = any((leaf.max_abs or 0.0) > 0 or leaf.mismatched for leaf in compared)
    nonfinite = worst.nan_count + worst.inf_count
    from diagnose.run import numerics as N

    return F.NumericsFacts(
        mismatch=bad_leaf is not None,
        mismatched=worst.mismatched,
        total=worst.total,
        fraction=(worst.mismatched / worst.total) if worst.total else None,
        max_abs=max((leaf.max_abs or 0.0 for leaf in compared), default=None) if bad_leaf is None else worst.max_abs,
        max_rel=worst.max_rel,
        nan_in_output=worst.nan_count > 0,
        shape_mismatch=any(leaf.shape_mismatch for leaf in compared),
        dtype_mismatch=any(leaf.dtype_mismatch for leaf in compared),
        dtype=worst.dtype,
        significand_bits=N.SIGNIFICAND_BITS.get(worst.dtype or ""),
        where=worst.where,
        tail_block=worst.tail_block,
        tail_blocks=worst.tail_blocks,
        tail_axis=worst.tail_axis,
        period=worst.period,
        bad_rows=worst.bad_rows,
        bad_cols=worst.bad_cols,
        transposed=worst.transposed,
        shift=worst.shift,
        shift_axis=worst.shift_axis,
        segment=worst.segment,
        sentinel_elems=worst.sentinel_count,
        zero_elems=worst.zero_count,
        nan_new=worst.nan_count,
        posinf_new=worst.posinf_count,
        neginf_new=worst.neginf_count,
        nonfinite_lost=worst.lost_count,
        nonfinite_computed=max(0, nonfinite - worst.sentinel_count),
        max_ulp=worst.max_ulp if bad_leaf is not None else max((x.max_ulp or 0.0 for x in compared), default=None),
        ulp_hist=worst.ulp_hist,
        median_rel=worst.median_rel,
        precision_bits=worst.precision_bits,
        error_growth=growth,
        growth_position=gp,
        error_grows=grows,
        scale=worst.scale if bad_leaf is not None else None,
        scale_by_column=bool(bad_leaf is not None and worst.scale_by_column),
        wrapped_bits=worst.wrapped_bits if bad_leaf is not None else None,
        scale_padded=padded_reading(worst.scale, _label_of(sizes, bad_leaf)) if bad_leaf is not None else None,
        reduction_lens=lens,
        nondeterministic=any(s.nondeterministic for s in sizes),
        expected_variation=bad_leaf is None and differs and all(s.ok for s in sizes),
        exact=not differs,
    )


def _label_of(sizes: tuple[SizeResult, ...] | list[SizeResult], leaf: LeafResult | None) -> str:
    return next((s.label for s in sizes if leaf is not None and any(x is leaf for x in s.leaves)), "")


def kernel_verdict(outcome: Outcome, facts: F.RunFacts, sizes: list[SizeResult]) -> str:
    if facts.reference_failed and not facts.compile_failed:
        return "no-result"  # nothing to compare against; a kernel that does not compile fails without one
    clean = outcome.exit_code == 0 and outcome.signal is None and not outcome.timed_out
    over_smem = (facts.compiled_shared_bytes or 0) > (facts.smem_limit_bytes or float("inf"))
    flagged = (
        facts.inputs_mutated
        or facts.output_unwritten
        or facts.canary_corrupted
        or facts.oob_loads > 0
        or facts.oob_stores > 0
        or facts.compile_failed
        or over_smem
        or facts.store_overlap_differ_elems > 0  # a store race the interpreter's program order hides
    )
    if clean and sizes and all(s.ok for s in sizes) and not flagged:
        return "pass"
    if facts.result_missing and clean and not flagged and not facts.sizes_failed and not facts.kernel_raised:
        return "no-result"
    return "fail"


def symptoms(outcome: Outcome | None, facts: F.RunFacts, ev: Evidence, verdict: str) -> L.Symptoms:
    crashed = outcome is not None and (outcome.exit_code not in (0, None) or outcome.signal is not None)
    return L.Symptoms(
        failed=verdict != "pass",
        error=crashed or facts.kernel_raised or ev.cuda is not None,
        timed_out=bool(outcome and outcome.timed_out),
        unwritten=facts.output_unwritten,
        nondeterministic=bool(ev.numerics and ev.numerics.nondeterministic),
    )


def command_verdict(outcome: Outcome, diag: Diagnosis) -> str:
    clean = outcome.exit_code == 0 and outcome.signal is None and not outcome.timed_out
    return "pass" if clean and diag.best is None else "fail"
