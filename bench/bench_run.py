"""What the runner costs: wall time of ``python -c pass`` under run() against a bare subprocess.run.

    .venv/bin/python bench/bench_run.py [--repeat 30]

Prints medians and ratios for each isolation mechanism this machine has, for ``kdiag run --
python -c pass`` once the CLI exists (skipped, with the reason, before), and the parent's own
start-up (``import diagnose.runner``), checking that it never imports torch, triton or cupy.
Numbers only; nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from diagnose.runner import RunRequest, child_env, detect_isolation, ensure_child_dirs, run  # noqa: E402

PASS = (sys.executable, "-c", "pass")


def _median(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm: page cache, the isolation probe
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    repeat = ap.parse_args().repeat
    tmp = Path(tempfile.mkdtemp(prefix="kdiag-bench-"))
    try:
        ensure_child_dirs(tmp)
        env = child_env(os.environ, {}, run_dir=tmp)

        def bare() -> object:
            return subprocess.run(PASS, env=env, stdin=subprocess.DEVNULL, check=False)

        base = _median(bare, repeat)
        print(f"bare subprocess.run(python -c pass)      {base * 1e3:7.1f} ms")
        print(f"isolation detected: {detect_isolation()[0]}")
        for mode in ("auto", "subreaper"):
            req = RunRequest(
                argv=PASS,
                cwd=tmp,
                env=env,
                stdout_path=tmp / "out",
                stderr_path=tmp / "err",
                isolation=mode,  # type: ignore[arg-type]
            )
            outcome = run(req)
            t = _median(lambda req=req: run(req), repeat)  # type: ignore[misc]
            label = f"run() [{outcome.isolation}]"
            print(f"{label:41s}{t * 1e3:7.1f} ms   ratio {t / base:5.2f}")

        kdiag = Path(sys.executable).with_name("kdiag")
        if importlib.util.find_spec("diagnose.cli") is None or not kdiag.exists():
            print("kdiag run -- python -c pass              skipped: the CLI does not exist yet")
        else:
            cmd = [str(kdiag), "run", "--", *PASS]
            probe = subprocess.run(cmd, cwd=tmp, capture_output=True, check=False)
            if probe.returncode not in (0, 1):
                print(f"kdiag run -- python -c pass              skipped: exit {probe.returncode}")
            else:
                t = _median(lambda: subprocess.run(cmd, cwd=tmp, capture_output=True, check=False), repeat)
                print(f"kdiag run -- python -c pass              {t * 1e3:7.1f} ms   ratio {t / base:5.2f}")

        importer = "import diagnose.runner, sys; print(sorted({'torch','triton','cupy'} & set(sys.modules)))"
        start = _median(lambda: subprocess.run([sys.executable, "-c", importer], cwd=ROOT, capture_output=True), repeat)
        heavy = subprocess.run([sys.executable, "-c", importer], cwd=ROOT, capture_output=True, text=True).stdout
        print(
            f"parent start-up (import diagnose.runner) {start * 1e3:7.1f} ms   GPU frameworks imported: {heavy.strip()}"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
