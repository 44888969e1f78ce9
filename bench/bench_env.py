"""How long `kdiag env` takes: snapshot() in process, and the whole command in a fresh interpreter.

.venv/bin/python bench/bench_env.py [--repeat N] [--probe-torch]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from diagnose.envinfo.snapshot import snapshot  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--probe-torch", action="store_true")
    args = ap.parse_args()

    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        snap = snapshot(probe_torch=args.probe_torch)
        times.append(time.perf_counter() - t0)
    print(
        f"snapshot(probe_torch={args.probe_torch}) x{args.repeat}: min {min(times) * 1000:.1f} ms, "
        f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
        f"(NVML: {snap['nvml']['init'].get('error') or 'ok'})"
    )

    import os

    from diagnose.envinfo import stack

    t0 = time.perf_counter()
    probe = stack._probe_torch(os.environ, 120)
    print(
        f"torch arch-list probe (child python, imports torch; what --probe-torch adds on a CUDA build): "
        f"{(time.perf_counter() - t0) * 1000:.0f} ms -> {probe.get('value')}"
    )

    walls = []
    for _ in range(max(3, args.repeat // 4)):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "diagnose.envinfo.render", "--format", "json"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            check=True,
        )
        walls.append(time.perf_counter() - t0)
    print(
        f"python -m diagnose.envinfo.render --format json x{len(walls)}: min {min(walls) * 1000:.1f} ms, "
        f"median {statistics.median(walls) * 1000:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
