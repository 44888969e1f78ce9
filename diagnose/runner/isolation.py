"""Which isolation this machine gives an attempt: a PID namespace (``unshare``) where it works, detected
once per process and cached, else a child subreaper (:mod:`diagnose.runner.process` uses it)."""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import sys

# -E: our own PYTHON* variables are the target's, not the reaper's; -s -S: no site, fast start.
REAPER_PYTHON = (sys.executable, "-E", "-s", "-S")
UNSHARE_ARGS = ("--pid", "--fork", "--kill-child", "--mount-proc")


@functools.cache
def detect_isolation() -> tuple[str, tuple[str, ...]]:
    """("pidns", unshare prefix) where a PID namespace works here, else ("subreaper", ())."""
    unshare = shutil.which("unshare") or next(
        (p for p in ("/usr/bin/unshare", "/bin/unshare") if os.access(p, os.X_OK)), None
    )
    if unshare is None:
        return "subreaper", ()
    candidates: list[tuple[str, ...]] = [(unshare, *UNSHARE_ARGS)]
    if os.geteuid() != 0:
        # unprivileged: a user namespace that maps us to ourselves (the child sees the same uid)
        candidates.append((unshare, "--user", "--map-current-user", *UNSHARE_ARGS))
    for prefix in candidates:
        if _probe(prefix):
            return "pidns", prefix
    return "subreaper", ()


def _probe(prefix: tuple[str, ...]) -> bool:
    """Does ``prefix python`` run as pid 1, and does unshare block SIGINT/SIGTERM while it waits?

    util-linux's unshare blocks both in the waiting parent (2.36 and later); an older one would
    die of our SIGINT and take the namespace down with SIGKILL, skipping the graceful steps.
    """
    code = "import os,sys; sys.stdout.write(str(os.getpid())); sys.stdout.flush(); sys.stdin.read()"
    try:
        p = subprocess.Popen(
            [*prefix, *REAPER_PYTHON, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    assert p.stdin is not None and p.stdout is not None
    ok = False
    try:
        ready, _, _ = select.select([p.stdout], [], [], 5.0)
        ok = bool(ready) and os.read(p.stdout.fileno(), 16) == b"1" and _blocks_int_term(p.pid)
    finally:
        p.stdin.close()
        try:
            p.wait(5.0)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        p.stdout.close()
    return ok and p.returncode == 0


def _blocks_int_term(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            line = next(ln for ln in f if ln.startswith("SigBlk:"))
    except (OSError, StopIteration):
        return False
    mask = int(line.split()[1], 16)
    return all(mask & (1 << (s - 1)) for s in (signal.SIGINT, signal.SIGTERM))
