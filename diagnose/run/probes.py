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
               contract: a failure is the kernel's); quick too for KernelBench and   (quick)
               GPU MODE targets, whose harnesses run such trials themselves
=============  =====================================================================  ======

Everything is derived from the inputs child's manifest (sizes, ``make_inputs``' integer keyword
defaults, each tensor's dtype, shape and strides): nothing is imported here.  All probes of a run go
through one inputs child (the reference runs in it) and one kernel child (a fresh kernel child continues
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
from typing import Any

from diagnose.run import arrays as A
from diagnose.run.probe_judge import judge, run_matrix, tolerance_of
from diagnose.run.probe_types import (
    CONTRACT_KINDS,
    FAIL_VERDICTS,
    FULL_KINDS,
    LEVELS,
    MAX_SIZE_PROBES,
    MIN_LAYOUT_ELEMS,
    OTHER_FLOATS,
    QUICK_KINDS,
    REPEATS,
    Batch,
    Matrix,
    Probe,
    ProbeResult,
    Runner,
    label_size,
    tensor_names,
)

__all__ = [
    "CONTRACT_KINDS", "FAIL_VERDICTS", "FULL_KINDS", "LEVELS", "QUICK_KINDS", "Batch", "Matrix", "Probe",
    "ProbeResult", "Runner", "assumption_failed", "contract_failed", "derive", "facts", "judge", "run_matrix",
    "table", "tolerance_of",
]  # fmt: skip


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
    manifest: Mapping[str, Any],
    level: str,
    *,
    seed: int,
    passed: Sequence[str] | None = None,
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

    _layout_probes(add, names, tensors, base_label, base_size, seed, level)
    if level == "full":
        _value_probes(add, names, tensors, base_label, base_size, seed, interpreter)
        _inside_probes(add, declared[0], seed)
    elif kind in HARNESS_KINDS:
        # what the benchmark's harness itself does (KernelBench's correctness trials, GPU MODE's tests in one
        # process): the declared size again with other inputs, in the same process, so state a submission
        # keeps from call to call (a result cached by shape) shows
        _seed_probes(add, declared[0], seed)
    return out


#: manifests of targets whose harness runs the declared size with several seeds in one process
HARNESS_KINDS = ("kernelbench", "gpumode")


def _layout_probes(
    add: Callable[[Probe], bool], names: list[str], tensors: Mapping[str, Any], base_label: str,
    base_size: Mapping[str, Any], seed: int, level: str,
) -> None:  # fmt: skip
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


def _value_probes(
    add: Callable[[Probe], bool], names: list[str], tensors: Mapping[str, Any], base_label: str,
    base_size: Mapping[str, Any], seed: int, interpreter: bool,
) -> None:  # fmt: skip
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


def _inside_probes(add: Callable[[Probe], bool], first: Mapping[str, Any], seed: int) -> None:
    """Inside the contract: the first declared size repeated, and with inputs from two other seeds."""
    add(Probe(f"repeat x{REPEATS} @ {_label(first)}", "repeat", f"the same inputs {REPEATS} times: same bits?",
              _label(first), first, seed, repeat=REPEATS))  # fmt: skip
    _seed_probes(add, first, seed)


def _seed_probes(add: Callable[[Probe], bool], first: Mapping[str, Any], seed: int) -> None:
    for s in (seed + 1, seed + 2):
        add(Probe(f"seed={s} @ {_label(first)}", "seed", f"inputs from seed {s} (declared size)",
                  _label(first), first, s))  # fmt: skip


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
        "probe_crash_error": next(
            (str(r.figures["error"]) for r in failed if r.verdict == "crash" and r.figures.get("error")), None
        ),
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
        "probe_fails_where": fails_where_wider(matrix, _declared_of(matrix)),
    }


def _declared_of(matrix: Matrix) -> list[dict[str, Any]]:
    """The declared sizes the size probes were derived from, read back from their ``base`` labels."""
    bases = dict.fromkeys(r.probe.base for r in matrix.results if r.probe.kind in ("nonmultiple", "size-one"))
    return [size for base in bases if (size := label_size(base))]


def fails_where_wider(matrix: Matrix, declared: Sequence[Mapping[str, Any]]) -> str | None:
    """``"n > m"`` when every size probe that failed (two at least) has size ``n`` above size ``m``, none with
    ``n <= m`` failed, and every declared size has ``n <= m``: the kernel sizes something of ``n`` from ``m`` (a
    grid, a loop bound, a mask), which square and tall inputs hide.

    >>> from diagnose.run.probe_types import Probe, ProbeResult
    >>> def r(m, n, v): return ProbeResult(Probe(f"m={m},n={n}", "nonmultiple", "", "m=100,n=100", {"m": m, "n": n}), v)
    >>> mx = Matrix("quick", (r(128, 129, "mismatch"), r(1, 128, "mismatch"), r(100, 99, "ok"), r(129, 128, "ok")))
    >>> fails_where_wider(mx, [{"m": 100, "n": 100}, {"m": 256, "n": 64}])
    'n > m'
    >>> fails_where_wider(mx, [{"m": 64, "n": 256}]) is None
    True
    """
    sized = [
        r
        for r in matrix.results
        if r.probe.kind in ("nonmultiple", "size-one") and r.verdict != "skipped-outside-contract"
    ]
    failed = [r.probe.size for r in sized if r.failed]
    passed = [r.probe.size for r in sized if not r.failed]
    if len(failed) < 2 or not passed:
        return None
    keys = size_kwargs(declared[0]) if declared else []
    for a in keys:
        for b in keys:
            if a == b:
                continue
            every = failed + passed + list(declared)
            if not all(isinstance(s.get(a), int) and isinstance(s.get(b), int) for s in every):
                continue
            if (all(s[b] > s[a] for s in failed) and all(s[b] <= s[a] for s in declared)
                    and any(s[b] <= s[a] for s in passed)):  # fmt: skip
                return f"{b} > {a}"
    return None


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
