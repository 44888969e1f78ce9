"""A large JSON Lines batch through `kdiag classify --format jsonl`: every record back, memory bounded.

    .venv/bin/python bench/bench_stream.py [--size-mb 1024] [--record-kb 32] [--jobs 1] [--keep]

Writes a batch of about --size-mb MB to a temporary directory (the records cycle through the
corpus's labelled logs, each padded with progress lines to about --record-kb KB, each with its own
id), runs the kdiag CLI on it in a child process, and prints: input records, output records (they
must be equal, in order), wall time, and the peak resident memory of kdiag (ru_maxrss of the child,
the largest single process) and of kdiag with its worker processes together (sampled from /proc).
Exit 1 when a record is missing or out of order.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def corpus_logs() -> list[str]:
    import yaml

    logs = []
    for path in sorted((ROOT / "corpus").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if isinstance(data, list):
            logs += [c["log"] for c in data if isinstance(c, dict) and isinstance(c.get("log"), str) and c["log"]]
    return logs


def write_batch(path: Path, size: int, record_bytes: int) -> int:
    logs = corpus_logs()
    n = written = 0
    with path.open("w") as fh:
        while written < size:
            log = logs[n % len(logs)]
            pad_lines = max(0, record_bytes - len(log)) // 48
            pad = "".join(f"epoch {n} step {i:6d} loss {1.0 / (i + 1):.6f} ok\n" for i in range(pad_lines))
            line = json.dumps({"id": f"rec-{n:07d}", "log": pad + log}) + "\n"
            fh.write(line)
            written += len(line)
            n += 1
    return n


def _tree_rss(pid: int) -> int:
    """Resident bytes of pid and every process below it (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo += [int(c) for c in fh.read().split()]
        except (OSError, ValueError):
            continue
    return total


def run_kdiag(batch: Path, jobs: int | None) -> tuple[int, int, float, int, int]:
    """(exit code, output records, seconds, peak RSS of one process, peak RSS of the process tree)."""
    cmd = [sys.executable, "-m", "diagnose.cli", "classify", str(batch), "--format", "jsonl", "--progress", "never"]
    cmd += ["--jobs", str(jobs)] if jobs else []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    peak_tree = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, cwd=ROOT)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak_tree
        while not done.wait(0.2):
            peak_tree = max(peak_tree, _tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    n = 0
    in_order = True
    assert proc.stdout is not None
    for line in proc.stdout:
        rec = json.loads(line)
        if in_order and rec["id"] != f"rec-{n:07d}":
            print(f"output record {n} is {rec['id']!r}: records are missing or out of order from here")
            in_order = False
        n += 1
    code = proc.wait()
    done.set()
    sampler.join()
    secs = time.perf_counter() - t0
    peak_one = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
    return code if in_order else 99, n, secs, peak_one, peak_tree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=1024, help="batch size in MB (default 1024)")
    ap.add_argument("--record-kb", type=int, default=32, help="about this many KB per record (default 32)")
    ap.add_argument("--jobs", type=int, help="kdiag classify --jobs (default: kdiag's own choice)")
    ap.add_argument("--keep", action="store_true", help="keep the batch file")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kdiag-bench-stream-"))
    batch = tmp / "batch.jsonl"
    t0 = time.perf_counter()
    records = write_batch(batch, args.size_mb << 20, args.record_kb << 10)
    size = batch.stat().st_size
    print(f"batch: {records:,} records, {size / 1e6:,.0f} MB, written in {time.perf_counter() - t0:.0f} s ({batch})")
    try:
        code, n, secs, one, tree = run_kdiag(batch, args.jobs)
    finally:
        if not args.keep:
            batch.unlink()
            tmp.rmdir()
    print(f"kdiag classify --format jsonl: exit {code}, {n:,} output records, {secs:.0f} s ({n / secs:,.0f} records/s)")
    print(f"peak RSS: {one / 2**20:,.0f} MiB (largest process), {tree / 2**20:,.0f} MiB (kdiag and its workers)")
    ok = n == records and code in (0, 1)
    print("every record came back, in order" if ok else f"MISSING: {records - n} records")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
