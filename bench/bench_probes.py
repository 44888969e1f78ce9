"""What the probes cost: ``kdiag run --probes full`` against one plain run (``--probes none``), per corpus kernel.

    .venv/bin/python bench/bench_probes.py [--kernels vector_add,ignores_strides] [--levels quick,full] [--shrink]

For every kernel in corpus/kernels/ (the hang kernel excepted: its plain run is the timeout), runs the
real CLI on this machine (no GPU: the Triton interpreter) once per probe level and prints the wall
time of the whole run, the probe matrix's own time and children, the verdict and the failure mode,
and the ratio to the plain run.  Numbers only; nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnose.cli import main as kdiag  # noqa: E402

SKIP = {"hang"}  # its plain run lasts until the timeout


def run(path: Path, runs: Path, level: str, shrink: bool) -> tuple[float, dict]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", str(path), "--cpu", "--format", "json", "--runs-dir", str(runs), "--probes", level]
    argv += ["--shrink"] if shrink else []
    t = time.perf_counter()
    kdiag(argv, out=out, err=err)
    took = time.perf_counter() - t
    return took, json.loads(out.getvalue() or "{}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", help="comma-separated stems (default: every corpus kernel)")
    ap.add_argument("--levels", default="quick,full")
    ap.add_argument("--shrink", action="store_true", help="also time --probes quick --shrink")
    args = ap.parse_args()
    folder = ROOT / "corpus" / "kernels"
    stems = args.kernels.split(",") if args.kernels else sorted(p.stem for p in folder.glob("*.py"))
    levels = [lv for lv in args.levels.split(",") if lv]
    runs = Path(tempfile.mkdtemp(prefix="kdiag-bench-probes-"))
    print(f"{'kernel':<22} {'plain s':>8} " + " ".join(f"{lv + ' s':>8} {'ratio':>6} {'probes':>6}" for lv in levels)
          + "  verdict (full) / failure mode / failed probes")  # fmt: skip
    for stem in stems:
        if stem in SKIP:
            print(f"{stem:<22} skipped: {SKIP and 'its plain run lasts until the timeout'}")
            continue
        path = folder / f"{stem}.py"
        plain, _ = run(path, runs, "none", False)
        cols = [f"{stem:<22} {plain:8.2f}"]
        last: dict = {}
        for lv in levels:
            took, res = run(path, runs, lv, False)
            pr = res.get("probes") or {}
            cols.append(f"{took:8.2f} {took / plain:6.2f} {len(pr.get('probes', [])):>6}")
            last = res
        failed = (last.get("probes") or {}).get("failed") or []
        cols.append(f"  {last.get('verdict')} / {last.get('failure_mode')} / {len(failed)}: {', '.join(failed[:3])}")
        print(" ".join(cols))
        if args.shrink:
            took, res = run(path, runs, "quick", True)
            sh = res.get("shrink") or {}
            print(
                f"{'':<22} --shrink {took:6.2f} s: {sh.get('smallest')} {sh.get('rules')} ({sh.get('batches')} batches)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
