"""Throughput of each log collector; print records/s and the ratio to a bare read of the same input.

    .venv/bin/python bench/bench_collectors.py [--quiet 2000] [--rounds 20] [--large 10] [--lines 30000]

For each collector (triton_errors, cuda_errors, compiler, environment, pytraceback, oom, sanitizer) and the
failure-line detector (diagnose/failure_lines.py), three inputs, each written to files first:

- quiet: a 60-line training log that says nothing the collector reads (it must answer None), --quiet copies;
- fixtures: the collector's own real samples under tests/fixtures/ (each with its .source.yaml), --rounds times;
- large: --lines lines of that training log with one of its fixtures at the end, --large copies.

Each input is timed twice in this process: only reading the files (``Path.read_text``), then reading
and parsing them.  The ratio read+parse / read is the figure to compare between checkouts and machines;
the CPU-time ratio is the one to trust on a shared machine.  The default run takes well under 30 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnose.collectors import (  # noqa: E402
    compiler,
    cuda_errors,
    environment,
    oom,
    pytraceback,
    sanitizer,
    triton_errors,
)
from diagnose.failure_lines import failure_lines  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


@dataclass(frozen=True)
class Subject:
    name: str
    parse: Callable[[str], object]
    fixtures: tuple[Path, ...]


def _found(parse: Callable[[str], object]) -> Callable[[str], object]:
    """The failure detector answers a list; an empty one is its 'nothing here'."""
    return lambda text: parse(text) or None


def subjects() -> list[Subject]:
    def files(area: str, ext: str = "log") -> tuple[Path, ...]:
        return tuple(sorted((FIXTURES / area).glob(f"*.{ext}")))

    return [
        Subject("triton_errors", triton_errors.parse, files("triton")),
        Subject("cuda_errors", cuda_errors.parse, files("cuda_errors")),
        Subject("compiler", compiler.parse, files("compiler")),
        Subject("environment", environment.parse, files("environment", "txt")),
        Subject("pytraceback", pytraceback.parse, files("pytraceback")),
        Subject("oom", oom.parse, files("oom")),
        Subject("sanitizer", sanitizer.parse, files("sanitizer", "txt")),
        Subject("failure_lines", _found(failure_lines), files("failure_lines")),
    ]


def quiet_log(lines: int) -> str:
    """A training loop's progress lines: no traceback, no error word, no CUDA or compiler message."""
    return "".join(f"step {i} loss=0.{i % 10_000:04d} lr=1e-4 cuda:0 mem 3.1 GiB Xid-free\n" for i in range(lines))


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float


def timed(paths: list[Path], parse: Callable[[str], object] | None) -> tuple[Timing, int]:
    """Read every file (and parse its text when ``parse`` is given); the time and how many gave facts."""
    hits = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for p in paths:
        text = p.read_text(encoding="utf-8", errors="replace")
        if parse is not None and parse(text) is not None:
            hits += 1
    return Timing(time.perf_counter() - t0, time.process_time() - c0), hits


def write(tmp: Path, name: str, texts: list[str], copies: int) -> list[Path]:
    """Each text in its own file, the list of files repeated ``copies`` times (the page cache keeps them warm)."""
    paths = []
    for i, text in enumerate(texts):
        p = tmp / f"{name}-{i}.log"
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths * copies


def measure(label: str, paths: list[Path], parse: Callable[[str], object]) -> tuple[float, int]:
    timed(paths[: max(1, len(paths) // 20)], parse)  # warm up: compile the collector's regexes once
    read, _ = timed(paths, None)
    full, hits = timed(paths, parse)
    n = len(paths)
    ratio = full.cpu / read.cpu if read.cpu > 0 else float("inf")
    print(
        f"  {label:<9} {n:>6} records  read {n / read.wall:>10,.0f}/s  read+parse {n / full.wall:>9,.0f}/s  "
        f"ratio {full.wall / read.wall:>6.1f}x (CPU {ratio:.1f}x)  {hits} with facts"
    )
    return full.wall, hits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quiet", type=int, default=2000, help="copies of the quiet log (default 2000)")
    ap.add_argument("--rounds", type=int, default=20, help="passes over each collector's fixtures (default 20)")
    ap.add_argument("--large", type=int, default=10, help="copies of the large log (default 10)")
    ap.add_argument("--lines", type=int, default=30_000, help="lines of noise in the large log (default 30000)")
    args = ap.parse_args()
    quiet = quiet_log(60)
    noise = quiet_log(args.lines)
    problems = []
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        for s in subjects():
            texts = [p.read_text(encoding="utf-8", errors="replace") for p in s.fixtures]
            hit = next((t for t in texts if s.parse(t) is not None), None)
            print(f"{s.name}: {len(texts)} fixtures, {sum(map(len, texts)) / 1e3:.0f} kB")
            _, hits = measure("quiet", write(tmp, f"{s.name}-quiet", [quiet], args.quiet), s.parse)
            if hits:
                problems.append(f"{s.name} found facts in the quiet log")
            if texts:
                measure("fixtures", write(tmp, f"{s.name}-fix", texts, args.rounds), s.parse)
            if hit is not None:
                _, hits = measure("large", write(tmp, f"{s.name}-large", [noise + hit], args.large), s.parse)
                if hits != args.large:
                    problems.append(f"{s.name} lost its fixture's facts after {args.lines} lines")
    print(f"total {time.perf_counter() - t_start:.1f} s")
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
