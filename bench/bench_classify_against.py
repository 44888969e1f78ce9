"""Classification CPU time of this checkout against another checkout of kdiag, on one fixed input.

    .venv/bin/python bench/bench_classify_against.py --baseline DIR [--records 3000] [--runs 5] [--keep FILE]
    .venv/bin/python bench/bench_classify_against.py --baseline DIR --input FILE [--runs 5]

``DIR`` is another kdiag checkout (e.g. ``git worktree add /tmp/kdiag-old SOME_COMMIT``).  One JSON
Lines file is written: --records records cycling through the labelled logs of the *baseline's* corpus
(real logs, each record with its own id), so both trees classify exactly the same input, and a later
measurement against the same baseline reads the same input again however this checkout's corpus has
grown.  ``--input`` reads a file written before (``--keep``) instead.
Then, alternately (baseline, this, baseline, this, ...) in fresh child processes with the
checkout first on ``sys.path``:

- in process: load the rule base, read and parse the file, classify every record
  (``classify_records``) — CPU seconds of each step (``time.process_time``);
- the CLI: ``kdiag classify FILE --format jsonl --jobs 1`` — user CPU seconds of the child
  (start-up and rule loading included), output discarded.

Each figure is the minimum over --runs runs (the least disturbed by other work on the machine).
It prints records per CPU second, the ratio to only reading and parsing, and this checkout's
figures as a ratio to the baseline's (below 1.00: this checkout is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run in a child with the checkout first on sys.path: one JSON line of CPU seconds
CHILD = r"""
import json, sys, time
t0 = time.process_time()
from diagnose.classify import classify_records
from diagnose.inputs import read_inputs
from diagnose.rules import load_rules
rules = load_rules()
t_load = time.process_time() - t0
t0 = time.process_time()
records = list(read_inputs([sys.argv[1]]))
t_read = time.process_time() - t0
t0 = time.process_time()
n = sum(1 for _ in classify_records(iter(records), rules=rules))
t_classify = time.process_time() - t0
print(json.dumps({"load": t_load, "read": t_read, "classify": t_classify, "records": n, "rules": len(rules)}))
"""


def corpus_cases(roots: list[Path]) -> list[dict]:
    import yaml

    cases, seen = [], set()
    for root in roots:
        for path in sorted((root / "corpus").rglob("*.yaml")):
            data = yaml.safe_load(path.read_text())
            if not isinstance(data, list):
                continue
            for c in data:
                if not isinstance(c, dict) or not (c.get("log") or c.get("stderr")):
                    continue
                key = (c.get("id"), c.get("log"), c.get("stdout"), c.get("stderr"))
                if key not in seen:
                    seen.add(key)
                    cases.append(c)
    return cases


def write_input(path: Path, cases: list[dict], records: int) -> None:
    with path.open("w") as fh:
        for i in range(records):
            c = cases[i % len(cases)]
            rec = {k: c[k] for k in ("log", "stdout", "stderr", "exit_code") if k in c}
            rec["id"] = f"{c['id']}-{i}"
            fh.write(json.dumps(rec) + "\n")


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def in_process(tree: Path, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], env=_env(tree), cwd=tree, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def cli_user_seconds(tree: Path, path: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    kdiag = "import sys; from diagnose.cli import main; sys.exit(main())"  # what the kdiag script runs
    cmd = [sys.executable, "-c", kdiag, "classify", str(path), "--format", "jsonl", "--jobs", "1"]
    subprocess.run(cmd, env=_env(tree), cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, type=Path, help="another kdiag checkout")
    ap.add_argument("--records", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="write the input here and keep it (default: a temporary file)")
    ap.add_argument("--input", type=Path, help="classify this JSON Lines file (one written with --keep) instead")
    args = ap.parse_args()
    base = args.baseline.resolve()
    if not (base / "diagnose" / "classify.py").is_file():
        print(f"{base}: not a kdiag checkout", file=sys.stderr)
        return 2
    trees = {"baseline": base, "this": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        if args.input is not None:
            path = args.input
            if not path.is_file():
                print(f"{path}: no such file", file=sys.stderr)
                return 2
            n = sum(1 for line in path.open() if line.strip())
            print(f"input: {path} ({n} records, {path.stat().st_size / 1e6:.1f} MB)")
        else:
            path = args.keep or Path(tmp) / "records.jsonl"
            cases = corpus_cases([base])
            write_input(path, cases, args.records)
            n = args.records
            print(f"input: {n} records ({path.stat().st_size / 1e6:.1f} MB), {len(cases)} distinct real logs")
        runs: dict[str, list[dict]] = {k: [] for k in trees}
        cli: dict[str, list[float]] = {k: [] for k in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                runs[name].append(in_process(tree, path))
                cli[name].append(cli_user_seconds(tree, path))
    best: dict[str, dict[str, float]] = {}
    for name in trees:
        best[name] = {k: min(r[k] for r in runs[name]) for k in ("load", "read", "classify")}
        best[name]["cli"] = min(cli[name])
        b, rules = best[name], runs[name][0]["rules"]
        print(
            f"{name:8s} ({rules} rules): classify {b['classify']:.3f} s CPU "
            f"({n / b['classify']:,.0f} records/s), {b['classify'] / b['read']:.1f}x read+parse; "
            f"rule load {b['load']:.2f} s; CLI {b['cli']:.2f} s user CPU"
        )
    t, o = best["this"], best["baseline"]
    print(
        f"this / baseline (min of {args.runs} runs): classify {t['classify'] / o['classify']:.2f}x, "
        f"rule load {t['load'] / o['load']:.2f}x, CLI {t['cli'] / o['cli']:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
