"""Shrink a failure to its smallest size, say which rule it follows, and write ``repro.py`` for it.

After a run that failed (at a declared size, or only at a probe), ``after_run``

1. picks the failing input: the first declared size that failed (its values, or an out-of-bounds
   access the interpreter or a canary saw there), else the first failing probe;
2. with ``--shrink``, for each integer size kwarg in turn, runs one batch of candidate sizes through
   the children (1..8, every power of two up to the failing size and its neighbours 2^k ± 1, the
   failing size itself), then at most :data:`MAX_REFINE` bisection batches between the largest
   passing and the smallest failing candidate; a candidate *fails the same way* when its verdict
   (``oob`` / ``mismatch`` / ``crash``) is the original's.  From the candidates it states the rule:
   ``fails whenever n % 256 != 0`` (the largest power of two whose multiples all pass and whose
   non-multiples all fail), ``fails whenever n >= T``, or the list when no simple rule fits;
3. writes ``repro.py`` into the run directory (from the template ``harness/repro.py``, read as text, with
   the failing input filled in): a standalone script (no kdiag import) that imports the
   user's files by path, builds the inputs with ``make_inputs`` (or the benchmark's) at the chosen
   size and seed, applies the probe's change (values, layout), runs kernel and reference, compares
   with the same tolerance, checks guard regions placed after every tensor the kernel allocates and
   after its inputs (writes past the end), prints the first bad indices and exits 1 when the failure
   reproduces (0 when it does not).  Triton on a machine without CUDA runs under
   ``TRITON_INTERPRET=1``, which the script sets before importing the user's module.

>>> rule_of("n", {1: True, 2: True, 255: True, 256: False, 257: True, 512: False, 1000: True})
'fails whenever n % 256 != 0'
>>> rule_of("n", {1: False, 64: False, 100: True, 128: True, 4096: True})
'fails whenever n >= 100'
>>> rule_of("n", {1: True, 2: False, 3: True, 4: False, 5: False})
'fails at n = 1, 3; passes at n = 2, 4, 5'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from diagnose.run import compare as C
from diagnose.run import probes as P

MAX_REFINE = 2  # bisection batches per kwarg after the first
REFINE_POINTS = 15  # sizes per bisection batch
MAX_KWARGS = 3


@dataclass(frozen=True)
class Shrunk:
    source: str  # what failed: "declared n=1000" | "probe n=4097"
    failure: str  # oob | mismatch | crash
    original: Mapping[str, Any]
    smallest: Mapping[str, Any]
    rules: tuple[str, ...] = ()  # one per kwarg shrunk: "fails whenever n % 256 != 0"
    tested: Mapping[str, Mapping[int, str]] = field(default_factory=dict)  # kwarg -> size -> verdict
    batches: int = 0
    took_s: float = 0.0
    repro: str | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "failure": self.failure,
            "original": dict(self.original),
            "smallest": dict(self.smallest),
            "rules": list(self.rules),
            "tested": {k: {str(n): v for n, v in sorted(t.items())} for k, t in self.tested.items()},
            "batches": self.batches,
            "took_s": round(self.took_s, 3),
            "repro": self.repro,
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        out = []
        if self.tested:
            rules = "; ".join(self.rules) or "no simple rule"
            out.append(f"shrink: {self.source} ({self.failure}) → smallest {P._label(self.smallest)}: {rules} "
                       f"({sum(len(t) for t in self.tested.values())} sizes in {self.batches} child batch(es), "
                       f"{self.took_s:.1f} s)")  # fmt: skip
        if self.repro:
            out.append(f"repro: {self.repro}  (python {Path(self.repro).name}: exits 1 while it fails)")
        out.extend(f"shrink: {n}" for n in self.notes)
        return out


# --- the rule a failure follows -------------------------------------------------------------------


def rule_of(kwarg: str, fails: Mapping[int, bool]) -> str | None:
    """The simplest rule that separates the failing sizes from the passing ones."""
    if not fails or not any(fails.values()):
        return None
    if all(fails.values()):
        return f"fails at every {kwarg} tried ({', '.join(map(str, sorted(fails)[:8]))})"
    for k in range(24, 0, -1):
        p = 1 << k
        multiples = [n for n in fails if n % p == 0]
        if multiples and all(fails[n] == (n % p != 0) for n in fails):
            return f"fails whenever {kwarg} % {p} != 0"
    bad = sorted(n for n, f in fails.items() if f)
    good = sorted(n for n, f in fails.items() if not f)
    if max(good) < bad[0]:
        return f"fails whenever {kwarg} >= {bad[0]}"
    if max(bad) < good[0]:
        return f"fails whenever {kwarg} <= {bad[-1]}"
    return (f"fails at {kwarg} = {', '.join(map(str, bad[:8]))}; passes at {kwarg} = "
            f"{', '.join(map(str, good[:8]))}")  # fmt: skip


def candidates(n: int) -> list[int]:
    """Sizes to try first for a failure at ``n``: the small ones, powers of two and their neighbours."""
    out = set(range(1, min(n, 8) + 1))
    top = 1
    while top < n:
        top *= 2
    p = 2
    while p <= top:
        out.update((p - 1, p, p + 1))
        p *= 2
    out.add(n)
    return sorted(v for v in out if 1 <= v <= max(n, top))


# --- the search -----------------------------------------------------------------------------------


def _failing_item(
    manifest: Mapping[str, Any],
    sizes: Sequence[C.SizeResult],
    dirty: Sequence[str],
    matrix: P.Matrix | None,
    seed: int,
) -> tuple[str, str, P.Probe] | None:
    defaults = dict(manifest.get("size_params") or {}) if manifest.get("kind") == "kernel-module" else {}
    by_label = {str(e.get("label")): e for e in manifest.get("sizes", []) if isinstance(e, Mapping)}
    for s in sizes:
        if s.ok and s.label not in dirty:
            continue
        if s.missing or s.reference_error:
            continue
        entry = by_label.get(s.label, {})
        size = {**defaults, **dict(entry.get("size") or {})}
        how = "oob" if s.label in dirty else ("crash" if s.kernel_error else "mismatch")
        return f"declared {s.label}", how, P.Probe(P._label(size), "declared", "declared size", s.label, size, seed)
    if matrix is not None:
        fails = matrix.failures
        sized = [r for r in fails if r.probe.kind in ("nonmultiple", "size-one", "empty")] or list(fails)
        if sized:
            r = sized[0]
            return f"probe {r.probe.label}", r.verdict, r.probe
    return None


def _run_sizes(
    runner: P.Runner, name: str, base: P.Probe, kwarg: str, values: Sequence[int], tolerance: Any
) -> dict[int, str]:
    probes = []
    for v in values:
        size = {**base.size, kwarg: v}
        probes.append(P.Probe(f"{kwarg}={v}", "shrink", f"{kwarg}={v}", base.base, size, base.seed,
                              values=base.values, layout=base.layout))  # fmt: skip
    batch = runner(name, [p.entry() for p in probes])
    return {v: P.judge(p, batch, P.tolerance_of(p, tolerance)).verdict for v, p in zip(values, probes, strict=True)}


def shrink_probe(
    base: P.Probe, failure: str, runner: P.Runner, tolerance: Any, notes: list[str]
) -> tuple[dict[str, Any], list[str], dict[str, dict[int, str]], int]:
    """(smallest failing size, rules, verdicts tried per kwarg, batches run)."""
    current = dict(base.size)
    rules: list[str] = []
    tested: dict[str, dict[int, str]] = {}
    batches = 0
    for kwarg in P.size_kwargs(current)[:MAX_KWARGS]:
        n = int(current[kwarg])
        here = P.Probe(base.label, base.kind, base.what, base.base, current, base.seed, base.values, base.layout)
        seen = _run_sizes(runner, f"shrink/{kwarg}-0", here, kwarg, candidates(n), tolerance)
        batches += 1
        for i in range(MAX_REFINE):
            same = sorted(v for v, verdict in seen.items() if verdict == failure)
            if not same:
                break
            lo = max((v for v, verdict in seen.items() if v < same[0] and verdict == "ok"), default=0)
            if same[0] - lo <= 1:
                break
            step = max(1, (same[0] - lo) // (REFINE_POINTS + 1))
            points = sorted({v for v in range(lo + step, same[0], step)} - set(seen))[:REFINE_POINTS]
            if not points:
                break
            seen.update(_run_sizes(runner, f"shrink/{kwarg}-{i + 1}", here, kwarg, points, tolerance))
            batches += 1
        tested[kwarg] = seen
        same = sorted(v for v, verdict in seen.items() if verdict == failure)
        if not same:
            notes.append(f"{kwarg}: no candidate failed the same way ({failure}); kept {kwarg}={n}")
            continue
        judged = {v: verdict == failure for v, verdict in seen.items() if verdict in ("ok", failure)}
        rule = rule_of(kwarg, judged)
        if rule:
            rules.append(rule)
        current[kwarg] = same[0]
    return current, rules, tested, batches


def after_run(
    target: Any,
    manifest: Mapping[str, Any],
    sizes: Sequence[C.SizeResult],
    matrix: P.Matrix | None,
    rd: Path,
    *,
    seed: int,
    do_shrink: bool,
    device: str,
    runner: P.Runner,
    tolerance: Any,
    dirty: Sequence[str] = (),
    notes: list[str] | None = None,
    clock: Callable[[], float] | None = None,
) -> Shrunk | None:
    import time

    clock = clock or time.monotonic
    t0 = clock()
    item = _failing_item(manifest, sizes, dirty, matrix, seed)
    if item is None:
        return None
    source, failure, probe = item
    local: list[str] = []
    smallest: dict[str, Any] = dict(probe.size)
    rules: list[str] = []
    tested: dict[str, dict[int, str]] = {}
    batches = 0
    if do_shrink:
        if target.kind == "kernelbench":
            local.append("KernelBench inputs have no size kwargs to shrink (the batch probes say which batches fail)")
        elif not P.size_kwargs(probe.size):
            local.append("no integer size kwarg to shrink")
        else:
            smallest, rules, tested, batches = shrink_probe(probe, failure, runner, tolerance, local)
    final = P.Probe(P._label(smallest), probe.kind, probe.what, probe.base, smallest, probe.seed, probe.values,
                    probe.layout)  # fmt: skip
    path = write_repro(rd / "repro.py", target, final, P.tolerance_of(final, tolerance), failure, device)
    shrunk = Shrunk(source, failure, dict(probe.size), smallest, tuple(rules), tested, batches, clock() - t0,
                    str(path), tuple(local))  # fmt: skip
    (rd / "shrink.json").write_text(json.dumps(shrunk.to_dict(), indent=1, default=str))
    if notes is not None:
        notes.extend(f"shrink: {n}" for n in local)
    return shrunk


# --- repro.py -------------------------------------------------------------------------------------


def tolerance_table(tolerance: Any) -> dict[str, list[float]]:
    """Per float dtype, the (atol, rtol) the comparison used: what repro.py compares with."""
    out = {}
    for dtype in C.DEFAULT_TOLERANCE:
        tol = C.tolerance_for(dtype, tolerance)
        if tol is not None:
            out[dtype] = [float(tol[0]), float(tol[1])]
    return out


def write_repro(path: Path, target: Any, probe: P.Probe, tolerance: Any, failure: str, device: str) -> Path:
    params = {
        "kind": target.kind,
        "submission": str(Path(target.path).resolve()) if target.path else None,
        "reference": str(Path(target.reference).resolve()) if target.reference else None,
        "files": [list(f) for f in getattr(target, "files", ())] or None,  # GPU MODE task.yml files:
        "size": dict(probe.size),
        "seed": probe.seed,
        "values": dict(probe.values) if probe.values else None,
        "layout": dict(probe.layout) if probe.layout else None,
        "tolerance": tolerance_table(tolerance),
        "failure": failure,
        "what": probe.what,
    }
    template = (Path(__file__).resolve().parent.parent.parent / "harness" / "repro.py").read_text()
    line = "PARAMS: dict = {}  # kdiag run replaces this line with the failing input"
    if line not in template:
        raise RuntimeError("harness/repro.py lacks its PARAMS line")
    data = json.dumps(params, indent=4, default=str).replace("Infinity", "1e308")
    path.write_text(template.replace(line, f'PARAMS = json.loads(r"""{data}""")'))
    path.chmod(0o755)
    return path
