"""Record 100,000 diagnoses in a fresh knowledge base; time `kdiag kb stats` and `kdiag kb unknowns` on it.

    .venv/bin/python bench/bench_kb.py [--records 100000] [--distinct 0.2] [--db PATH]

The diagnoses are the corpus's real logs, classified once; each recorded diagnosis is one of them
under its own record id (a new observation).  A share (``--distinct``) also gets one extra error
line naming a numbered kernel, which makes it a failure of its own (a new fingerprint), so the store
ends with many entries, not a few hundred.  Recording goes through the same path as
`kdiag classify --record` (fingerprint, observation, one transaction each); the classifying itself
is not timed (bench_classify.py measures that).  The two commands run as `kdiag` subprocesses,
so their times include starting Python.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnose.classify import classify_records  # noqa: E402
from diagnose.inputs import read_inputs  # noqa: E402
from diagnose.kb.record import observation  # noqa: E402
from diagnose.kb.store import Store  # noqa: E402


def corpus_reports() -> list:
    files = [
        str(p) for p in sorted((ROOT / "corpus").rglob("*.yaml")) if p.name not in ("labels.yaml", "recorded.yaml")
    ]
    return [r for r in classify_records(read_inputs(files)) if r.status in ("diagnosed", "unknown")]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr}")
    return took, p.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--distinct", type=float, default=0.2, help="share of records that are a failure of their own")
    ap.add_argument("--db", help="where to build the store (default: a temp dir)")
    args = ap.parse_args()

    base = corpus_reports()
    tmp = tempfile.mkdtemp(prefix="kdiag-bench-kb-")
    db = Path(args.db) if args.db else Path(tmp) / "kb.sqlite"
    if db.exists():
        db.unlink()
    every = max(1, round(1 / args.distinct)) if args.distinct > 0 else 0
    t0 = time.perf_counter()
    with Store(db) as store:
        for i in range(args.records):
            rep = base[i % len(base)]
            ev = rep.evidence
            if every and i % every == 0:
                log = dataclasses.replace(ev.log, text=f"{ev.log.text}\nerror: kernel_{i // every} failed\n")
                ev = ev.replace(log=log)
            rep = dataclasses.replace(rep, id=f"bench-{i}", evidence=ev)
            obs = observation(rep, source="bench")
            assert obs is not None
            store.record(obs)
        record_s = time.perf_counter() - t0
        t = time.perf_counter()
        stats = store.stats()
        stats_inproc = time.perf_counter() - t
    size = db.stat().st_size
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kdiag = [sys.executable, "-m", "diagnose.cli"]
    stats_s, _ = timed([*kdiag, "kb", "stats", "--db", str(db)], env)
    unknowns_s, out = timed([*kdiag, "kb", "unknowns", "--db", str(db), "--format", "table"], env)
    noop_s, _ = timed([*kdiag, "--help"], env)
    print(
        f"recorded {args.records:,} diagnoses in {record_s:.1f} s ({args.records / record_s:,.0f}/s, one transaction each)"
    )
    print(f"store: {stats['entries']:,} entries, {stats['observations']:,} observations, {size / 2**20:.1f} MiB")
    print(f"kdiag kb stats:    {stats_s:.2f} s wall (Store.stats() itself: {stats_inproc * 1000:.0f} ms)")
    print(f"kdiag kb unknowns: {unknowns_s:.2f} s wall ({out.strip().splitlines()[-1]})")
    print(f"kdiag --help (Python start + imports, for scale): {noop_s:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
