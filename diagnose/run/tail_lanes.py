"""The power-of-two check: a declared size that fails, re-run with one size rounded up to a power of two.

A kernel that reduces a row in one block of ``BLOCK = next_power_of_2(N)`` lanes is right only if the
padding lanes of the block stay out of the result: masked loads with a neutral ``other``, centred values
re-masked before a variance, ``N`` (not ``BLOCK``) as the count.  When they do not, every row is a little
off when ``N`` is not a power of two, and exactly right when it is.  A benchmark problem declares one
size, so this module supplies the other: when a declared size failed with small errors spread over the
output (no index pattern, nothing unwritten, no NaN, no TF32 dot or narrow accumulator to explain them), or
with every wrong element exactly 0.0 (a padding lane's ``other=0.0`` in a product or a minimum),
each integer size parameter that is a dimension of the
inputs and not a power of two runs again at the next power of two (at most :data:`MAX_PARAMS`, an input
at most :data:`MAX_GROWTH` times larger), through the probe children.  A parameter whose rounded-up run
passes is the run fact ``pow2_passes`` ("features=1024"); the rule ``run-tail-lanes-in-reduction`` reads it.

>>> from diagnose.run.compare import LeafResult, SizeResult
>>> leaf = LeafResult("out0", False, "float32", (24, 700), 16800, 6025, median_rel=1.6e-4)
>>> m = {"kind": "kernelbench", "size_overrides": {"batch_size": 24, "features": 700}, "sizes": [
...     {"label": "default", "size": {}, "structure": {"tuple": [{"t": "in0"}]},
...      "tensors": {"in0": {"dtype": "float32", "shape": [24, 700]}}}]}
>>> [(c.param, c.value, c.rounded) for c in candidates(m, [SizeResult("default", False, leaves=(leaf,))])]
[('batch_size', 24, 32), ('features', 700, 1024)]
>>> [e["size"] for e in entries(m, candidates(m, [SizeResult("default", False, leaves=(leaf,))]), seed=0)]
[{'batch_size': 32}, {'features': 1024}]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnose import facts as F
from diagnose.evidence import Evidence
from diagnose.run import accum_sweep as W
from diagnose.run import compare as C
from diagnose.run.context import RunContext
from diagnose.run.probe_types import tensor_names

MAX_PARAMS = 2  # parameters tried (each one more kernel run)
MAX_GROWTH = 2.0  # the rounded-up size may make an input at most this much larger
MIN_VALUE = 8


@dataclass(frozen=True)
class Candidate:
    param: str
    value: int
    rounded: int
    base: str  # the failing declared size's label
    size: Mapping[str, Any]  # its size kwargs


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def looks_spread(n: F.NumericsFacts | None, run: F.RunFacts | None) -> bool:
    """Small errors spread over the output with nothing else to explain them: not NaN, not unwritten, not
    moved or offset, no TF32 dot, no narrow accumulator in the source, no growth with the reduction length
    (those have their own rules; the check would only cost a run).  Large errors count when every wrong element is
    exactly 0.0 (a padding lane's 0.0 in a product), not otherwise.

    >>> from diagnose.facts import NumericsFacts as N
    >>> zeroed = N(mismatch=True, mismatched=48, total=48, zero_elems=48, max_rel=1.0, where="everywhere")
    >>> looks_spread(zeroed, None), looks_spread(dataclasses.replace(zeroed, zero_elems=0), None)
    (True, False)
    """
    if n is None:
        return False
    # the wrong elements exactly 0.0, where the reference is not: a padding lane's `other=0.0` (a sum's identity)
    # entered a product or a minimum, which one zero decides whatever the row's true values
    zeroed = (n.mismatched or 0) > 0 and n.zero_elems >= 0.9 * (n.mismatched or 0) and not n.nan_in_output
    if not (zeroed or W.looks_like_accumulation(n, run) or n.error_growth is not None):
        return False
    if n.segment is not None or n.error_grows or n.where not in ("everywhere", "scattered", "rows"):
        return False
    return not (run is not None and (run.inputs_mutated or run.tf32_dot or run.narrow_accumulator))


def candidates(
    manifest: Mapping[str, Any], sizes: Sequence[C.SizeResult], *, reference: Path | None = None
) -> list[Candidate]:
    """The size parameters of the first failing declared size worth rounding up to a power of two."""
    bad = W._first_failing(sizes)
    if bad is None:
        return []
    entry = next((e for e in manifest.get("sizes", []) if str(e.get("label")) == bad.label), None)
    if not isinstance(entry, Mapping):
        return []
    kind = str(manifest.get("kind") or "kernel-module")
    params = W._params(manifest, entry, reference)
    tensors = entry.get("tensors") or {}
    names = tensor_names(entry.get("structure"), args_only=kind == "kernelbench") or list(tensors)
    in_dims = {int(d) for n in names for d in (tensors.get(n) or {}).get("shape") or []}
    out = []
    for k, v in params.items():
        if v < MIN_VALUE or v not in in_dims or v & (v - 1) == 0:
            continue
        up = _next_pow2(v)
        if up / v > MAX_GROWTH:
            continue
        out.append(Candidate(k, v, up, bad.label, dict(entry.get("size") or {})))
    return out[:MAX_PARAMS]


def entries(manifest: Mapping[str, Any], cands: Sequence[Candidate], *, seed: int) -> list[dict[str, Any]]:
    """The inputs child's probe entries (KernelBench: the constant is rebound, harness/inputs.py)."""
    kind = str(manifest.get("kind") or "kernel-module")
    out = []
    for c in cands:
        size = {c.param: c.rounded} if kind == "kernelbench" else {**c.size, c.param: c.rounded}
        out.append({"label": f"pow2 {c.param}={c.rounded}", "kind": "pow2-check", "size": size, "seed": seed})
    return out


def check(ctx: RunContext, manifest: Mapping[str, Any], sizes: list[C.SizeResult], ev: Evidence) -> Evidence:
    """Run the check when a declared size failed with spread errors; the evidence with ``pow2_passes`` set when
    rounding one parameter up to a power of two made the failure go away (unchanged otherwise)."""
    if ctx.opts.ladder == "none" or not looks_spread(ev.numerics, ev.run):
        return ev
    cands = candidates(manifest, sizes, reference=ctx.target.reference)
    if not cands:
        return ev
    from diagnose.run.probe_run import run_entries

    tol = C.with_override(manifest.get("tolerance"), ctx.opts.atol, ctx.opts.rtol)
    try:
        batch = run_entries(ctx, "pow2-check", entries(manifest, cands, seed=ctx.opts.seed))
    except Exception as e:  # the diagnosis stands without the check
        ctx.log.note(f"power-of-two check failed: {type(e).__name__}: {e}")
        return ev
    passed = []
    for c, entry in zip(cands, entries(manifest, cands, seed=ctx.opts.seed), strict=True):
        label = entry["label"]
        inp = next((m for m in batch.manifest.get("sizes", []) if m.get("label") == label), None)
        ref, rec = batch.reference.get(label), batch.kernel.get(label)
        if inp is None or inp.get("error") or ref is None or ref.get("error") or rec is None:
            continue
        folder = Path(str(rec.get("_folder", "")))
        res = C.compare_size(label, rec, folder / "outputs" / str(rec.get("dir")), ref,
                             batch.reference_dir / str(ref.get("dir")), tol, inputs=inp)  # fmt: skip
        ok = res.ok and bool(res.leaves) and not res.kernel_error
        ctx.log.note(f"power-of-two check: {c.param}={c.rounded} (declared {c.value}) {'passes' if ok else 'fails'}")
        if ok:
            passed.append(f"{c.param}={c.rounded}")
    if not passed:
        return ev
    run = ev.run or F.RunFacts()
    return ev.replace(run=dataclasses.replace(run, pow2_passes=passed[0]))
