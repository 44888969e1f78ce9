"""Probes: inputs just outside what a kernel declares, run through the same children, judged one by one.

A kernel's contract is what it declares (``SIZES``, the dtypes and layouts ``make_inputs`` returns,
a benchmark's input shapes).  A probe changes one thing about a declared input and asks whether
the kernel still agrees with the reference (TAXONOMY.md, "Contract vs probe"):

=============  =====================================================================  ======
kind           what changes                                                           level
=============  =====================================================================  ======
nonmultiple    one size kwarg n → n-1, n+1, a prime above n of the smallest declared  quick
               size, n+1 of the others (KernelBench: the batch, the first dimension)
size-one       one size kwarg → 1                                                     quick
noncontiguous  2-D+ inputs as transposed views and as column slices of a wider buffer quick
               (same values); every-other-element views of any input                  full
misaligned     the kernel gets views starting 1 element into a larger buffer          quick
empty          one size kwarg → 0                                                     full
dtype          float tensors cast to another float dtype (skipped if the reference    full
               rejects it: outside the contract)
large          float inputs x 1e4, and scaled to a quarter of the dtype's max         full
repeat         the first declared size three times: the bits must not change          full
seed           the first declared size with inputs from two other seeds (inside the   full
               contract: a failure is the kernel's)
=============  =====================================================================  ======

Everything is derived from the inputs child's manifest (sizes, ``make_inputs``' integer keyword
defaults, each tensor's dtype, shape and strides): nothing is imported here.  All probes of a run go
through one inputs child, one reference child and one kernel child (a fresh kernel child continues
after a probe that crashed or hung it); ``judge`` turns each probe's records into a verdict:
``ok``, ``mismatch``, ``oob`` (the interpreter's bounds checks or a canary saw an access outside an
argument, even when the in-range numbers are right), ``crash``, ``rejected`` (the submission's own
assert / NotImplementedError refused the input: a check, not a failure) or
``skipped-outside-contract`` (make_inputs or the reference does not accept it).

>>> m = {"kind": "kernel-module", "size_params": {"n": 4096},
...      "sizes": [{"label": "n=4096", "size": {"n": 4096}, "structure": {"tuple": [{"t": "in0"}]},
...                 "tensors": {"in0": {"dtype": "float32", "shape": [4096]}}}]}
>>> [p.label for p in derive(m, "quick", seed=0)]
['n=4095', 'n=4097', 'n=4099', 'n=1', 'misaligned in0 @ n=4096']
>>> sorted({p.kind for p in derive(m, "full", seed=0)} - {p.kind for p in derive(m, "quick", seed=0)})
['dtype', 'empty', 'large', 'noncontiguous', 'repeat', 'seed']
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.run import arrays as A
from diagnose.run import compare as C

LEVELS = ("none", "quick", "full")
QUICK_KINDS = ("nonmultiple", "size-one", "noncontiguous", "misaligned")
FULL_KINDS = (*QUICK_KINDS, "empty", "dtype", "large", "repeat", "seed")
#: kinds whose inputs stay inside the declared contract: a failure there is the kernel's (kernel-logic)
CONTRACT_KINDS = ("repeat", "seed")
FAIL_VERDICTS = ("oob", "mismatch", "crash")
MAX_SIZE_PROBES = 18  # n-1, n+1, a prime, for up to 6 (size, kwarg) pairs
OTHER_FLOATS = {"float32": ("float16", "bfloat16"), "float16": ("bfloat16", "float32"), "bfloat16": ("float16", "float32")}
REPEATS = 3
MIN_LAYOUT_ELEMS = 16  # layout probes start from a declared size whose tensors have at least this many elements


@dataclass(frozen=True)
class Probe:
    label: str  # unique in a run: "n=4097", "transposed in0 @ rows=64,cols=4096"
    kind: str
    what: str  # what changed against the declared input, in words
    base: str  # the declared size it was derived from
    size: Mapping[str, Any] = field(default_factory=dict)  # make_inputs' size kwargs
    seed: int = 0
    values: Mapping[str, Any] | None = None  # value change the inputs child applies (harness.probes)
    layout: Mapping[str, Any] | None = None  # layout the kernel child applies
    repeat: int | None = None

    @property
    def contract(self) -> bool:
        return self.kind in CONTRACT_KINDS

    def entry(self) -> dict[str, Any]:
        """The inputs child's probe entry (see harness/probes.py)."""
        d: dict[str, Any] = {"label": self.label, "kind": self.kind, "size": dict(self.size), "seed": self.seed}
        if self.values:
            d["values"] = dict(self.values)
        if self.layout:
            d["layout"] = {"kind": self.layout["kind"], "tensors": list(self.layout["tensors"])}
        if self.repeat:
            d["repeat"] = self.repeat
        return d

    def key(self) -> str:
        e = self.entry()
        e.pop("label")
        e.pop("kind")
        return json.dumps(e, sort_keys=True, default=str)


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    verdict: str  # ok | mismatch | oob | crash | rejected | skipped-outside-contract
    figures: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.verdict in FAIL_VERDICTS

    def to_dict(self) -> dict[str, Any]:
        p = self.probe
        return {
            "label": p.label,
            "kind": p.kind,
            "what": p.what,
            "base": p.base,
            "inside_contract": p.contract,
            "entry": p.entry(),
            "verdict": self.verdict,
            "figures": dict(self.figures),
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Batch:
    """What the children left for a list of entries: the inputs manifest, every kernel record, the references."""

    manifest: Mapping[str, Any]
    kernel: Mapping[str, Mapping[str, Any]]  # label -> the kernel child's record (``_folder``: where its outputs are)
    reference: Mapping[str, Mapping[str, Any]]  # label -> the reference child's record
    reference_dir: Path
    children: tuple[Mapping[str, Any], ...] = ()  # each child: name, exit, signal, timed out, seconds
    lost: Mapping[str, str] = field(default_factory=dict)  # label -> why the kernel child left no record
    took_s: float = 0.0


Runner = Callable[[str, Sequence[Mapping[str, Any]]], Batch]


@dataclass(frozen=True)
class Matrix:
    level: str
    results: tuple[ProbeResult, ...] = ()
    took_s: float = 0.0
    children: tuple[Mapping[str, Any], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def failures(self) -> tuple[ProbeResult, ...]:
        return tuple(r for r in self.results if r.failed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "took_s": round(self.took_s, 3),
            "children": [dict(c) for c in self.children],
            "notes": list(self.notes),
            "probes": [r.to_dict() for r in self.results],
        }

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1, default=str))


# --- deriving the probes ------------------------------------------------------------------------


def is_prime(n: int) -> bool:
    """
    >>> [k for k in range(20) if is_prime(k)]
    [2, 3, 5, 7, 11, 13, 17, 19]
    """
    if n < 2:
        return False
    return all(n % d for d in range(2, math.isqrt(n) + 1))


def prime_above(n: int) -> int:
    k = n + 1
    while not is_prime(k):
        k += 1
    return k


def size_kwargs(size: Mapping[str, Any]) -> list[str]:
    """The kwargs of a size that are sizes: integers (not bools), not a seed."""
    return [k for k, v in size.items() if isinstance(v, int) and not isinstance(v, bool) and k != "seed"]


def tensor_names(struct: Any, *, args_only: bool = False) -> list[str]:
    """Tensor leaf names of a structure; KernelBench (``args_only``): those of the forward's inputs."""
    if not isinstance(struct, Mapping):
        return []
    if args_only and isinstance(struct.get("dict"), Mapping) and "args" in struct["dict"]:
        return tensor_names(struct["dict"]["args"])
    if "t" in struct:
        return [str(struct["t"])]
    out: list[str] = []
    for key in ("tuple", "list"):
        if isinstance(struct.get(key), list):
            for s in struct[key]:
                out += tensor_names(s)
    if isinstance(struct.get("dict"), Mapping):
        for s in struct["dict"].values():
            out += tensor_names(s)
    return out


def _label(size: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in size.items()) or "default"


def _numel(entry: Mapping[str, Any]) -> int:
    total = 0
    for t in (entry.get("tensors") or {}).values():
        n = 1
        for d in t.get("shape") or []:
            n *= int(d)
        total += n
    return total


def _smallest_tensor(entry: Mapping[str, Any]) -> int:
    counts = [math.prod(int(d) for d in t.get("shape") or []) for t in (entry.get("tensors") or {}).values()]
    return min(counts, default=0)


def derive(
    manifest: Mapping[str, Any], level: str, *, seed: int, passed: Sequence[str] | None = None,
    interpreter: bool = False,
) -> list[Probe]:
    """The probes of ``level`` for the declared inputs in ``manifest`` (the inputs child's)."""
    if level not in ("quick", "full"):
        return []
    entries = [e for e in manifest.get("sizes", []) if isinstance(e, Mapping) and "tensors" in e]
    if not entries:
        return []
    kind = str(manifest.get("kind") or "kernel-module")
    args_only = kind == "kernelbench"
    defaults = dict(manifest.get("size_params") or {}) if kind == "kernel-module" else {}
    declared = [{**defaults, **dict(e.get("size") or {})} for e in entries]
    seen = {json.dumps({"size": d, "seed": seed}, sort_keys=True) for d in declared}
    out: list[Probe] = []

    def add(p: Probe) -> bool:
        plain = not (p.values or p.layout or p.repeat)
        k = json.dumps({"size": dict(p.size), "seed": p.seed}, sort_keys=True) if plain else p.key()
        if k in seen or any(q.label == p.label for q in out):
            return False
        seen.add(k)
        out.append(p)
        return True

    # the declared size the layout/value probes start from: the smallest one that passed cleanly and is
    # not degenerate (a 1-element tensor has no layout to get wrong)
    ok = [i for i, e in enumerate(entries) if passed is None or str(e.get("label")) in passed] or list(
        range(len(entries))
    )
    big = [i for i in ok if _smallest_tensor(entries[i]) >= MIN_LAYOUT_ELEMS] or ok
    pick = min(big, key=lambda i: _numel(entries[i]))
    base_entry, base_size = entries[pick], declared[pick]
    base_label = _label(base_size)

    if kind == "kernelbench":
        _batch_probes(add, base_entry, base_label, level, seed)
    else:
        _size_probes(add, declared, level, seed)

    names = tensor_names(base_entry.get("structure"), args_only=args_only)
    tensors = base_entry.get("tensors") or {}

    def shape(n: str) -> list[int]:
        return [int(d) for d in tensors.get(n, {}).get("shape") or []]

    two_d = [n for n in names if len(shape(n)) >= 2 and shape(n)[-1] > 1 and shape(n)[-2] > 1]
    some = [n for n in names if math.prod(shape(n)) >= 2]
    any_elems = [n for n in names if math.prod(shape(n)) >= 1]
    # quick: the layouts callers hand over every day, a transposed matrix and a column slice of a wider
    # one (x[:, :k]); full: also every other element (x[..., ::2]), which a 1-D kernel written as
    # `x_ptr + offs` (the usual elementwise kernel) does not handle either
    if two_d:
        add(Probe(f"transposed {','.join(two_d)} @ {base_label}", "noncontiguous",
                  f"{', '.join(two_d)} as transposed views (column-major storage), same values",
                  base_label, base_size, seed, layout={"kind": "transpose", "tensors": two_d}))  # fmt: skip
        add(Probe(f"row-padded {','.join(two_d)} @ {base_label}", "noncontiguous",
                  f"{', '.join(two_d)} as column slices of a buffer twice as wide (row stride 2x), same values",
                  base_label, base_size, seed, layout={"kind": "pad_rows", "tensors": two_d}))  # fmt: skip
    if some and level == "full":
        add(Probe(f"strided {','.join(some)} @ {base_label}", "noncontiguous",
                  f"{', '.join(some)} as every-other-element views (last stride 2), same values",
                  base_label, base_size, seed, layout={"kind": "stride2", "tensors": some}))  # fmt: skip
    if any_elems:
        add(Probe(f"misaligned {','.join(any_elems)} @ {base_label}", "misaligned",
                  f"{', '.join(any_elems)} start 1 element into a larger buffer (not 16-byte aligned)",
                  base_label, base_size, seed, layout={"kind": "offset1", "tensors": any_elems}))  # fmt: skip
    if level != "full":
        return out

    floats = sorted({str(tensors[n]["dtype"]) for n in names if tensors.get(n, {}).get("dtype") in OTHER_FLOATS})
    for src in floats:
        for dst in OTHER_FLOATS[src]:
            if interpreter and "bfloat16" in (src, dst):
                continue  # the Triton interpreter (numpy) does not compute bfloat16 faithfully
            add(Probe(f"{src}->{dst} @ {base_label}", "dtype", f"{src} inputs cast to {dst}", base_label,
                      base_size, seed, values={"cast": [src, dst]}))  # fmt: skip
    if any(tensors.get(n, {}).get("dtype") in A.FLOATS for n in names):
        add(Probe(f"x1e4 @ {base_label}", "large", "float inputs scaled by 1e4 (clamped to a quarter of the max)",
                  base_label, base_size, seed, values={"scale": 1e4}))  # fmt: skip
        add(Probe(f"near-max @ {base_label}", "large", "float inputs scaled to a quarter of the dtype's max",
                  base_label, base_size, seed, values={"near_max": 0.25}))  # fmt: skip
    first = declared[0]
    add(Probe(f"repeat x{REPEATS} @ {_label(first)}", "repeat", f"the same inputs {REPEATS} times: same bits?",
              _label(first), first, seed, repeat=REPEATS))  # fmt: skip
    for s in (seed + 1, seed + 2):
        add(Probe(f"seed={s} @ {_label(first)}", "seed", f"inputs from seed {s} (declared size)",
                  _label(first), first, s))  # fmt: skip
    return out


def _size_probes(add: Callable[[Probe], bool], declared: list[dict[str, Any]], level: str, seed: int) -> None:
    budget = MAX_SIZE_PROBES
    smallest = min(range(len(declared)), key=lambda i: math.prod(max(1, int(declared[i][k]))
                                                                 for k in size_kwargs(declared[i])))  # fmt: skip
    for i, size in enumerate(declared):
        for k in size_kwargs(size):
            v = int(size[k])
            steps = ((v - 1, "- 1"), (v + 1, "+ 1"), (prime_above(v + 1), "→ a prime"))
            for new, why in steps if i == smallest else steps[1:2]:
                if new < 2 or budget <= 0:
                    continue
                changed = {**size, k: new}
                what = f"{k}={new} (declared {v} {why})" if why != "→ a prime" else f"{k}={new} (a prime above {v})"
                if add(Probe(_label(changed), "nonmultiple", what, _label(size), changed, seed)):
                    budget -= 1
    first = declared[0]
    for k in size_kwargs(first):
        one = {**first, k: 1}
        add(Probe(_label(one), "size-one", f"{k}=1 (declared {first[k]})", _label(first), one, seed))
    if level == "full":
        for k in size_kwargs(first):
            zero = {**first, k: 0}
            add(Probe(_label(zero), "empty", f"{k}=0: empty inputs (declared {first[k]})", _label(first), zero, seed))


def _batch_probes(add: Callable[[Probe], bool], entry: Mapping[str, Any], label: str, level: str, seed: int) -> None:
    """KernelBench: vary the first dimension every forward input shares (the batch)."""
    tensors = entry.get("tensors") or {}
    names = tensor_names(entry.get("structure"), args_only=True)
    dims = [int(tensors[n]["shape"][0]) for n in names if tensors.get(n, {}).get("shape")]
    if not dims:
        return
    b = dims[0]
    news = [(b - 1, "nonmultiple"), (b + 1, "nonmultiple"), (prime_above(b + 1), "nonmultiple"), (1, "size-one")]
    if level == "full":
        news.append((0, "empty"))
    for new, kind in news:
        if new == b or (new < 2 and kind == "nonmultiple"):
            continue
        add(Probe(f"batch={new}", kind, f"first dimension {new} (declared {b})", label, {}, seed,
                  values={"batch": new, "from": b}))  # fmt: skip


# --- judging them --------------------------------------------------------------------------------


def tolerance_of(probe: Probe, base: Any) -> Any:
    """The tolerance a probe is judged with: the declared one, loosened where the probe changes the scale."""
    values = probe.values or {}
    if not values or not ({"scale", "near_max", "cast"} & set(values)):
        return base
    out: dict[str, dict[str, float]] = {}
    for dtype, default in C.DEFAULT_TOLERANCE.items():
        atol, rtol = C.tolerance_for(dtype, base) or default
        if "scale" in values:
            atol *= float(values["scale"])
        elif "near_max" in values:
            atol = math.inf  # only NaN / Inf the reference does not have count
        elif "cast" in values:
            atol, rtol = max(atol, default[0]), max(rtol, default[1])
        out[dtype] = {"atol": atol, "rtol": rtol}
    return out


def judge(probe: Probe, batch: Batch, tolerance: Any) -> ProbeResult:
    ref = batch.reference.get(probe.label)
    inp = next((e for e in batch.manifest.get("sizes", []) if e.get("label") == probe.label), None)
    if inp is None or inp.get("error"):
        why = (inp or {}).get("error") or "no inputs were made"
        return ProbeResult(probe, "skipped-outside-contract", {}, f"make_inputs does not accept it: {why}"[:300])
    if ref is None or ref.get("error"):
        why = (ref or {}).get("error") or "the reference wrote no result"
        return ProbeResult(probe, "skipped-outside-contract", {}, f"the reference rejects it: {why}"[:300])
    rec = batch.kernel.get(probe.label)
    if rec is None:
        return ProbeResult(probe, "crash", {"lost": True}, batch.lost.get(probe.label, "the kernel child left no record"))
    figures: dict[str, Any] = {}
    oob = rec.get("oob") if isinstance(rec.get("oob"), Mapping) else None
    canary = [c for c in rec.get("canary") or [] if isinstance(c, Mapping)]
    if oob:
        figures.update(oob_loads=oob.get("loads", 0), oob_stores=oob.get("stores", 0), oob_arg=oob.get("arg"),
                       oob_distance_elems=oob.get("distance_elems"))  # fmt: skip
    if canary:
        figures["canary"] = [f"{c.get('name')} {c.get('side')}" for c in canary]
    if rec.get("error"):
        err = str(rec["error"])
        figures["error"] = err[:200]
        if rec.get("raised_in_submission") and err.split(":")[0] in ("AssertionError", "NotImplementedError"):
            return ProbeResult(probe, "rejected", figures, f"the submission refuses it: {err[:200]}")
        return ProbeResult(probe, "crash", figures, f"the kernel raised: {err[:200]}")
    folder = Path(str(rec.get("_folder", "")))
    res = C.compare_size(probe.label, rec, folder / "outputs" / str(rec.get("dir")), ref,
                         batch.reference_dir / str(ref.get("dir")), tolerance)  # fmt: skip
    if probe.kind == "dtype":
        res = _cast_compare(res, rec, folder / "outputs" / str(rec.get("dir")), ref,
                            batch.reference_dir / str(ref.get("dir")), tolerance, figures)  # fmt: skip
    bad = [leaf for leaf in res.leaves if not leaf.ok]
    worst = bad[0] if bad else max(res.leaves, key=lambda x: x.max_abs or 0.0, default=None)
    if worst is not None:
        figures.update(mismatched=worst.mismatched, total=worst.total, max_abs=worst.max_abs,
                       max_ulp=worst.max_ulp, pattern=worst.pattern)  # fmt: skip
        if worst.first_bad is not None:
            figures["first_bad"] = worst.first_bad
        if worst.nan_count:
            figures["nan"] = worst.nan_count
    if res.unwritten:
        figures["unwritten"] = {k: v.get("count") for k, v in res.unwritten.items() if isinstance(v, Mapping)}
    if res.mutated:
        figures["mutated"] = list(res.mutated)
    if res.nondeterministic:
        figures["nondeterministic"] = True
    if oob or canary:
        parts = [f"{oob.get('loads', 0)} loads / {oob.get('stores', 0)} stores out of bounds"] if oob else []
        parts += ["canary hit on " + ", ".join(figures["canary"])] if canary else []
        where = "; ".join(parts)
        right = " (the in-range values are right)" if res.ok else ""
        return ProbeResult(probe, "oob", figures, where + right)
    if not res.ok:
        why = res.invalid or (bad[0].problem if bad and bad[0].problem else "")
        if bad and not why:
            b = bad[0]
            why = f"{b.mismatched}/{b.total} wrong ({b.pattern}), max abs {_g(b.max_abs)}, max ulp {_g(b.max_ulp)}"
        if res.unwritten:
            why += ("; " if why else "") + "output partly unwritten"
        if res.mutated:
            why += ("; " if why else "") + f"changed its inputs {', '.join(res.mutated)}"
        return ProbeResult(probe, "mismatch", figures, why)
    if res.nondeterministic:
        return ProbeResult(probe, "ok", figures, "matches, but the bits differ between identical runs")
    return ProbeResult(probe, "ok", figures, "")


def _cast_compare(
    res: C.SizeResult, rec: Mapping[str, Any], kdir: Path, ref: Mapping[str, Any], rdir: Path, tol: Any,
    figures: dict[str, Any],
) -> C.SizeResult:
    """A dtype probe: an output in another dtype than the reference's is compared after the cast (a choice,
    not a failure); the values decide."""
    if not any(leaf.dtype_mismatch for leaf in res.leaves):
        return res
    leaves = []
    try:
        for leaf in res.leaves:
            if not leaf.dtype_mismatch:
                leaves.append(leaf)
                continue
            kent, rent = rec["tensors"][leaf.name], _ref_entry(ref, len(leaves))
            out, expected = A.load(kdir, kent), A.load(rdir, rent)
            figures["output_dtype"] = f"{kent['dtype']} (reference {rent['dtype']})"
            leaves.append(C.compare_arrays(out, expected, rent["dtype"], rent["dtype"], tol, name=leaf.name))
    except (A.ResultInvalid, KeyError, TypeError, ValueError):
        return res
    ok = all(leaf.ok for leaf in leaves) and not res.mutated and not res.unwritten
    return C.SizeResult(res.label, ok, leaves=tuple(leaves), mutated=res.mutated, unwritten=res.unwritten,
                        nondeterministic=res.nondeterministic, kernel_s=res.kernel_s)  # fmt: skip


def _ref_entry(ref: Mapping[str, Any], index: int) -> Any:
    names = tensor_names(ref.get("structure"))
    return ref["tensors"][names[index]]


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


# --- the whole matrix -----------------------------------------------------------------------------


def run_matrix(probes: Sequence[Probe], runner: Runner, level: str, tolerance: Any) -> Matrix:
    if not probes:
        return Matrix(level, notes=("no probe applies: no size kwargs and no tensor inputs",))
    batch = runner("probes", [p.entry() for p in probes])
    results = tuple(judge(p, batch, tolerance_of(p, tolerance)) for p in probes)
    return Matrix(level, results, batch.took_s, batch.children)


def facts(matrix: Matrix | None) -> dict[str, Any]:
    """RunFacts fields summarising the matrix."""
    if matrix is None:
        return {}
    judged = [r for r in matrix.results if r.verdict != "skipped-outside-contract"]
    failed = matrix.failures
    kinds = tuple(dict.fromkeys(r.probe.kind for r in failed))

    def any_of(kind: str) -> bool:
        return kind in kinds

    return {
        "probes": matrix.level,
        "probe_count": len(judged),
        "probe_skipped": len(matrix.results) - len(judged),
        "probe_failed": tuple(r.probe.label for r in failed),
        "probe_failed_kinds": kinds,
        "probe_failed_verdicts": tuple(dict.fromkeys(r.verdict for r in failed)),
        "probe_nonmultiple_failed": any_of("nonmultiple"),
        "probe_size_one_failed": any_of("size-one"),
        "probe_empty_failed": any_of("empty"),
        "probe_noncontiguous_failed": any_of("noncontiguous"),
        "probe_misaligned_failed": any_of("misaligned"),
        "probe_dtype_failed": any_of("dtype"),
        "probe_large_failed": any_of("large"),
        "probe_seed_failed": any_of("seed") or any(r.probe.kind == "repeat" for r in failed),
        "probe_nondeterministic": any(bool(r.figures.get("nondeterministic")) for r in matrix.results),
        "probe_oob": any(r.verdict == "oob" for r in failed),
    }


def contract_failed(matrix: Matrix | None) -> bool:
    """Did a probe *inside* the contract (another seed, a repeat at a declared size) fail?"""
    return bool(matrix and any(r.probe.contract for r in matrix.failures))


def assumption_failed(matrix: Matrix | None) -> bool:
    return bool(matrix and any(not r.probe.contract for r in matrix.failures))


def table(matrix: Matrix, width: int = 100) -> list[str]:
    """The compact matrix for the text report: one line per probe."""
    lines = []
    for r in matrix.results:
        mark = {"ok": "ok", "skipped-outside-contract": "skip"}.get(r.verdict, r.verdict.upper())
        text = f"  {mark:<9} {r.probe.kind:<13} {r.probe.label}"
        if r.detail:
            text += f"  {r.detail}"
        lines.append(text[:width])
    return lines
