"""Classify 10,000 records; print records/s and the ratio to only reading and parsing the same input.

    .venv/bin/python bench/bench_classify.py [--records 10000]

The records cycle through every labelled case of the corpus (real logs), each with its own id,
written to one JSON Lines file; both timings run in this process on the same file.  Each is given
in wall-clock seconds and in this process's CPU seconds (the figure to compare on a shared machine).
To compare with another checkout on one input, see bench/bench_classify_against.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnose.classify import classify_parallel, classify_records  # noqa: E402
from diagnose.inputs import read_inputs  # noqa: E402
from diagnose.rules import load_rules  # noqa: E402


def corpus_logs() -> list[dict]:
    import yaml

    cases = []
    for path in sorted((ROOT / "corpus").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if isinstance(data, list):
            cases += [c for c in data if isinstance(c, dict) and (c.get("log") or c.get("stderr"))]
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=10_000)
    args = ap.parse_args()
    cases = corpus_logs()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        with path.open("w") as fh:
            for i in range(args.records):
                c = cases[i % len(cases)]
                rec = {k: c[k] for k in ("log", "stdout", "stderr", "exit_code") if k in c}
                rec["id"] = f"{c['id']}-{i}"
                fh.write(json.dumps(rec) + "\n")
        size = path.stat().st_size

        t0, c0 = time.perf_counter(), time.process_time()
        n_read = sum(1 for _ in read_inputs([str(path)]))
        t_read, c_read = time.perf_counter() - t0, time.process_time() - c0

        rules = load_rules()
        t0, c0 = time.perf_counter(), time.process_time()
        reports = list(classify_records(read_inputs([str(path)]), rules=rules))
        t_full, c_full = time.perf_counter() - t0, time.process_time() - c0

        jobs = os.cpu_count() or 1
        t0 = time.perf_counter()
        n_par = sum(1 for _ in classify_parallel(read_inputs([str(path)]), jobs=jobs))
        t_par = time.perf_counter() - t0
    assert n_read == len(reports) == args.records
    diagnosed = sum(r.status == "diagnosed" for r in reports)
    print(
        f"records: {args.records} ({size / 1e6:.1f} MB of JSON Lines, {len(cases)} distinct real logs, {len(rules)} rules)"
    )
    print(
        f"read + parse only: {t_read:.3f} s  ({args.records / t_read:,.0f} records/s); "
        f"{c_read:.3f} s CPU ({args.records / c_read:,.0f} records per CPU second)"
    )
    print(
        f"classify:          {t_full:.3f} s  ({args.records / t_full:,.0f} records/s); "
        f"{c_full:.3f} s CPU ({args.records / c_full:,.0f} records per CPU second), {diagnosed} diagnosed"
    )
    print(f"ratio classify / read+parse: {t_full / t_read:.1f}x (CPU: {c_full / c_read:.1f}x)")
    assert n_par == args.records
    print(
        f"classify, {jobs} worker processes: {t_par:.3f} s  ({args.records / t_par:,.0f} records/s), "
        f"{t_full / t_par:.2f}x the single process (workers' start-up and rule compile included)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
