"""The reduction-length sweep: a declared size that fails like a narrow accumulator, re-run with a shorter reduction.

Rounding error of a sum grows with the number of terms, and faster with a narrow accumulator; a
float16 accumulator at K=4096 is off by ~1e-3 relative everywhere, at K=256 by far less.  With
several declared reduction lengths :func:`diagnose.run.runfacts.numerics_facts` measures that growth
from the declared sizes; a benchmark problem declares *one* size, and this module supplies the
others.

When the run failed with the accumulation signature (:func:`looks_like_accumulation`: small
relative errors on most elements (the median under 1%), no NaN, no unwritten element, no index pattern) and only one
reduction length was compared, :func:`plan` finds the size parameter that *is* the reduction
length: an integer size (a ``make_inputs`` / ``generate_input`` keyword, a KernelBench module-level
constant) whose value is a dimension of an input and of no output.  When none or several qualify it
says so and nothing runs: the dimension is not guessed.  The failing size then runs again with that
parameter at 1/16 and 1/4 of its value (through the probe children: one inputs, one reference, one
kernel child); a point counts only if the output keeps its shape and the inputs shrink (otherwise the
parameter was not the reduction length after all, and the sweep says so).  The points join the
declared one in the ``numerics`` growth facts (``error_growth``, ``error_grows``,
``reduction_lens``), and the ``run`` facts name the parameter, its values and the median relative
error at each (``accum_sweep_*``).

>>> from diagnose.run.compare import LeafResult, SizeResult
>>> leaf = LeafResult("out0", False, "float32", (64,), 64, 60, median_rel=1e-3)
>>> m = {"kind": "kernel-module", "size_params": {"rows": 64, "cols": 4096}, "sizes": [
...     {"label": "rows=64,cols=4096", "size": {"rows": 64, "cols": 4096},
...      "structure": {"tuple": [{"t": "in0"}]}, "tensors": {"in0": {"dtype": "float16", "shape": [64, 4096]}}}]}
>>> p = plan(m, [SizeResult("rows=64,cols=4096", False, leaves=(leaf,))])
>>> p.param, p.value, [e["size"] for e in p.entries(seed=0)]
('cols', 4096, [{'rows': 64, 'cols': 256}, {'rows': 64, 'cols': 1024}])
>>> square = {**m, "sizes": [{**m["sizes"][0], "size": {"rows": 64, "cols": 64},
...                            "tensors": {"in0": {"dtype": "float16", "shape": [64, 64]}}}]}
>>> plan(square, [SizeResult("rows=64,cols=4096", False, leaves=(leaf,))]).why_not
'no size parameter is a dimension of the inputs and of no output (rows=64, cols=64): the reduction dimension cannot be told from the shapes, and kdiag does not guess it'
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose import facts as F
from diagnose.run import compare as C
from diagnose.run import sizes as Z
from diagnose.run.probe_types import Batch, tensor_names

SHORTEN = (16, 4)  # the failing size re-runs with the reduction at 1/16 and 1/4 of its length
MIN_LEN = 4  # a shorter length below this says nothing about growth
MIN_FRACTION = 0.25  # of the output's elements outside tolerance: the error is spread, not local
MAX_MEDIAN_REL = 0.01  # a narrow accumulator costs the typical element a few ULP of float16, not percents


def looks_like_accumulation(n: F.NumericsFacts | None, run: F.RunFacts | None) -> bool:
    """Small relative errors over most elements, nothing unwritten, no NaN, no index pattern, one length."""
    if n is None or not n.mismatch or n.shape_mismatch or n.dtype_mismatch:
        return False
    if n.nonfinite_computed or n.sentinel_elems or n.transposed or n.shift is not None:
        return False
    # the median, not the maximum: with inputs of both signs a few sums land near zero, where any
    # rounding error is a large relative one (KernelBench's torch.randn inputs)
    if (n.fraction or 0.0) < MIN_FRACTION or n.median_rel is None or n.median_rel > MAX_MEDIAN_REL:
        return False
    if run is not None and (run.output_unwritten or run.oob_loads or run.oob_stores or run.canary_corrupted):
        return False
    return n.error_growth is None  # several declared lengths already measured it


@dataclass(frozen=True)
class Plan:
    kind: str
    base: str = ""  # the failing declared size's label
    size: Mapping[str, Any] = field(default_factory=dict)  # its size kwargs
    param: str | None = None
    value: int | None = None
    why_not: str | None = None

    def lengths(self) -> list[int]:
        if self.value is None:
            return []
        return sorted({self.value // d for d in SHORTEN if MIN_LEN <= self.value // d < self.value})

    def entries(self, *, seed: int) -> list[dict[str, Any]]:
        """The inputs child's probe entries (KernelBench: the constant is rebound, harness/inputs.py)."""
        out = []
        for n in self.lengths():
            assert self.param is not None
            size = {self.param: n} if self.kind == "kernelbench" else {**self.size, self.param: n}
            out.append({"label": f"accum {self.param}={n}", "kind": "accum-sweep", "size": size, "seed": seed})
        return out


def _first_failing(sizes: Sequence[C.SizeResult]) -> C.SizeResult | None:
    return next((s for s in sizes if not s.ok and s.leaves and not s.leaves[0].ok), None)


def _params(manifest: Mapping[str, Any], entry: Mapping[str, Any], reference: Path | None) -> dict[str, int]:
    kind = str(manifest.get("kind") or "kernel-module")
    given: dict[str, Any]
    if kind == "kernelbench":
        given = dict(Z.constants(reference)) if reference is not None else {}
        given.update(manifest.get("size_overrides") or {})
        given.update((manifest.get("resized") or {}).get("ran") or {})
    elif kind == "kernel-module":
        given = {**dict(manifest.get("size_params") or {}), **dict(entry.get("size") or {})}
    else:
        given = dict(entry.get("size") or {})
    return {
        k: int(v)
        for k, v in given.items()
        if isinstance(v, int) and not isinstance(v, bool) and k.lower() != "seed" and v >= 2 * MIN_LEN
    }


def plan(manifest: Mapping[str, Any], sizes: Sequence[C.SizeResult], *, reference: Path | None = None) -> Plan:
    """Which size parameter is the reduction length of the failing declared size (or why none is named)."""
    kind = str(manifest.get("kind") or "kernel-module")
    bad = _first_failing(sizes)
    if bad is None:
        return Plan(kind, why_not="no declared size failed with a comparable output")
    entry = next((e for e in manifest.get("sizes", []) if str(e.get("label")) == bad.label), None)
    if not isinstance(entry, Mapping):
        return Plan(kind, bad.label, why_not="the failing size has no inputs entry")
    params = _params(manifest, entry, reference)
    tensors = entry.get("tensors") or {}
    names = tensor_names(entry.get("structure"), args_only=kind == "kernelbench") or list(tensors)
    in_dims = {int(d) for n in names for d in (tensors.get(n) or {}).get("shape") or []}
    out_dims = {int(d) for leaf in bad.leaves for d in leaf.shape}
    found = [k for k, v in params.items() if v in in_dims and v not in out_dims]
    have = ", ".join(f"{k}={v}" for k, v in params.items()) or "none"
    size = dict(entry.get("size") or {})
    if not found:
        return Plan(kind, bad.label, size, why_not=(
            f"no size parameter is a dimension of the inputs and of no output ({have}): the reduction dimension "
            "cannot be told from the shapes, and kdiag does not guess it"))  # fmt: skip
    if len(found) > 1:
        return Plan(kind, bad.label, size, why_not=(
            f"several size parameters could be the reduction length ({', '.join(found)}): kdiag does not guess "
            "which"))  # fmt: skip
    p = Plan(kind, bad.label, size, found[0], params[found[0]])
    if not p.lengths():
        return dataclasses.replace(p, why_not=f"{p.param}={p.value} is too short to shorten (1/4 is under {MIN_LEN})")
    return p


@dataclass(frozen=True)
class Point:
    label: str
    length: int
    result: C.SizeResult | None
    problem: str | None = None  # why the point does not count


def judge(p: Plan, batch: Batch, base: C.SizeResult, tolerance: Any) -> list[Point]:
    """Each shortened run compared with its reference; a point counts when the output kept its shape."""
    out = []
    base_shape = base.leaves[0].shape if base.leaves else ()
    for e in p.entries(seed=0):
        label, n = e["label"], int(e["size"][p.param])
        inp = next((m for m in batch.manifest.get("sizes", []) if m.get("label") == label), None)
        ref, rec = batch.reference.get(label), batch.kernel.get(label)
        if inp is None or inp.get("error") or ref is None or ref.get("error") or rec is None:
            why = (inp or {}).get("error") or (ref or {}).get("error") or batch.lost.get(label) or "no record"
            out.append(Point(label, n, None, f"did not run: {str(why)[:200]}"))
            continue
        folder = Path(str(rec.get("_folder", "")))
        res = C.compare_size(label, rec, folder / "outputs" / str(rec.get("dir")), ref,
                             batch.reference_dir / str(ref.get("dir")), tolerance, inputs=inp)  # fmt: skip
        leaf = res.leaves[0] if res.leaves else None
        if res.kernel_error or leaf is None or leaf.median_rel is None:
            out.append(Point(label, n, res, f"no comparable output: {res.kernel_error or res.invalid or 'none'}"))
        elif leaf.shape != base_shape or (res.input_elems or 0) >= (base.input_elems or 0):
            out.append(Point(label, n, res, f"the output's shape changed to {list(leaf.shape)} (declared "
                                            f"{list(base_shape)}): {p.param} is not only the reduction length"))  # fmt: skip
        else:
            out.append(Point(label, n, res))
    return out


def record(p: Plan, points: Sequence[Point], base: C.SizeResult) -> dict[str, Any]:
    """What accum-sweep.json keeps."""
    rows = [{"label": pt.label, p.param or "length": pt.length, "problem": pt.problem,
             "result": pt.result.to_dict() if pt.result else None} for pt in points]  # fmt: skip
    return {"param": p.param, "declared": {"label": base.label, p.param or "length": p.value}, "points": rows}


def write(path: Path, data: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1, default=str))
