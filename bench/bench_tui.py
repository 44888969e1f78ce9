"""Open a 10,000-record batch in the TUI and filter it; print the figures.

    .venv/bin/python bench/bench_tui.py [--records 10000] [--repeat 5]

"open" is reading the file and showing the first screen, after Textual itself has started once
(its own start-up, the first figure, is paid once per process: add the two for a cold start).
The batch is `kdiag classify --format jsonl` output: every labelled case of the corpus (real logs)
classified once, then repeated with its own id up to --records lines.  The app runs headless
(``App.run_test``) at 160x45; each figure includes drawing the screen after the change.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnose.classify import classify_records  # noqa: E402
from diagnose.inputs import read_inputs  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.model import read_results  # noqa: E402
from tui.query import Index, parse_query  # noqa: E402
from tui.screens.batch import BatchScreen  # noqa: E402

QUERIES = ("cat:kernel", "mode:oob", "rule:cuda-", "illegal memory", "cat:unknown", "no-such-text-anywhere", "")


def write_batch(path: Path, n: int) -> int:
    files = sorted(str(p) for p in (ROOT / "corpus").rglob("*.yaml"))
    reports = [r.to_dict() for r in classify_records(read_inputs(files))]
    with path.open("w") as fh:
        for i in range(n):
            d = dict(reports[i % len(reports)])
            d["id"] = f"{d['id']}#{i}"
            fh.write(json.dumps(d) + "\n")
    return len(reports)


async def measure(path: Path, repeat: int) -> dict[str, float]:
    t0 = time.perf_counter()
    async with make_app([], source="empty").run_test(size=(160, 45)) as pilot:
        await pilot.pause()
    empty_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    batch = read_results(path)
    t_read = time.perf_counter() - t0
    app = make_app(batch.cases, source=str(path))
    t1 = time.perf_counter()
    figures: dict[str, float] = {"app start, no cases s": empty_s, "read_s": t_read}
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        figures["open_s"] = t_read + time.perf_counter() - t1
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        times = []
        for _ in range(repeat):
            s = time.perf_counter()
            await pilot.pause()
            times.append(time.perf_counter() - s)
        figures["an idle frame (pause) ms"] = 1000 * statistics.median(times)
        for q in QUERIES:
            times = []
            for _ in range(repeat):
                s = time.perf_counter()
                screen.set_filter(q)
                await pilot.pause()
                times.append(time.perf_counter() - s)
            figures[f"filter {q or '(clear)'!r} ms"] = 1000 * statistics.median(times)
            figures[f"rows {q or '(clear)'!r}"] = len(screen.rows)
        for col in ("confidence", "rule"):
            times = []
            for k in range(repeat):
                s = time.perf_counter()
                screen.sort_by(col, reverse=bool(k % 2))
                await pilot.pause()
                times.append(time.perf_counter() - s)
            figures[f"sort {col} ms"] = 1000 * statistics.median(times)
        s = time.perf_counter()
        await pilot.press("end")
        await pilot.pause()
        figures["jump to last row ms"] = 1000 * (time.perf_counter() - s)
    idx = Index(batch.cases)
    s = time.perf_counter()
    for _ in range(repeat):
        idx.filter(parse_query("cat:kernel mode:oob"))
    figures["Index.filter only ms"] = 1000 * (time.perf_counter() - s) / repeat
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.jsonl"
        distinct = write_batch(path, args.records)
        print(f"batch: {args.records:,} results ({distinct} distinct corpus cases), {path.stat().st_size / 1e6:.1f} MB")
        for k, v in asyncio.run(measure(path, args.repeat)).items():
            print(f"  {k:<36} {v:,.3f}" if isinstance(v, float) else f"  {k:<36} {v:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
