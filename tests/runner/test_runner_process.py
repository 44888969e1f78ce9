"""run() with real child processes: exits, signals, timeouts, escaping descendants, floods of output.

Every case is a real ``python -c`` or ``sh`` child; timeouts and grace periods are short so the
whole file stays well under 30 s.  Nothing here asserts on wall time beyond "it returned".
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import uuid
from pathlib import Path

import pytest

from diagnose.runner import output as output_mod
from diagnose.runner import process
from diagnose.runner.childenv import child_env, ensure_child_dirs
from diagnose.runner.process import Outcome, RunRequest, detect_isolation, run
from diagnose.runner.reaper import read_proc

PY = sys.executable
HAVE_PIDNS = detect_isolation()[0] == "pidns"
# "auto" is a PID namespace where this machine allows one; the fallbacks are tested everywhere
MODES = ["auto", "subreaper"]
#: the time limit where a child must first start Python and set its signal handlers (or start a descendant) for the
#: test to prove anything: long enough on a loaded machine (pytest-xdist workers beside nvcc and torch imports)
SETTLE = 2.0


def _run(tmp_path: Path, argv: list[str], **kw: object) -> Outcome:
    ensure_child_dirs(tmp_path)
    opts: dict[str, object] = dict(timeout=10.0, sigint_grace=0.3, sigterm_grace=0.3, kill_wait=0.5)
    opts.update(kw)
    req = RunRequest(
        argv=tuple(argv),
        cwd=tmp_path,
        env=child_env(os.environ, {}, run_dir=tmp_path),
        stdout_path=tmp_path / "stdout",
        stderr_path=tmp_path / "stderr",
        **opts,  # type: ignore[arg-type]
    )
    return run(req)


def _marked(marker: str) -> list[int]:
    """Pids of live processes whose command line holds ``marker`` (works inside a PID namespace too)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        info = read_proc(int(name))
        if marker.encode() in cmdline and info is not None and info.state not in ("Z", "X"):
            pids.append(int(name))
    return pids


def _sleeper(marker: str) -> str:
    """Python source of a process that sleeps forever and is findable by ``marker``."""
    return f"[sys.executable, '-c', 'import time; time.sleep(1000)', '{marker}']"


# --- plain exits --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("code", [0, 3])
def test_exit_codes(tmp_path: Path, mode: str, code: int) -> None:
    out = _run(
        tmp_path,
        [PY, "-c", f"import sys; print('out'); print('err', file=sys.stderr); sys.exit({code})"],
        isolation=mode,
    )
    assert (out.exit_code, out.signal, out.timed_out, out.stop_step) == (code, None, False, "none")
    assert out.stdout.read_text() == "out\n" and out.stderr.read_text() == "err\n"  # never merged
    assert out.stdout.total_bytes == 4 and not out.stdout.truncated
    assert out.survivors == () and out.runner_error is None and out.started
    assert out.max_rss_kib and out.max_rss_kib > 1000
    assert out.user_cpu_s is not None and out.system_cpu_s is not None
    assert out.duration_s > 0
    assert out.pid_namespace == (HAVE_PIDNS and mode == "auto")
    assert out.isolation == ("pidns" if out.pid_namespace else "subreaper")


def test_stdin_closed_and_environment_passed(tmp_path: Path) -> None:
    out = _run(tmp_path, [PY, "-c", "import os,sys; print(repr(sys.stdin.read()), os.environ['KDIAG_SEED'])"])
    assert out.stdout.read_text() == "'' 0\n"


def test_signal_dispositions_and_mask_reset(tmp_path: Path) -> None:
    # the reaper ignores INT/TERM/HUP; none of that may reach the target
    out = _run(tmp_path, ["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"])
    masks = dict(line.split(":\t") for line in out.stdout.read_text().splitlines())
    # signals 32 and 33 are glibc's own (NPTL): no process can change their disposition through the
    # C library, so when kdiag itself was started with them ignored (seen under some job control),
    # the target inherits that; every signal a program can use must be back to default
    glibc_reserved = (1 << 31) | (1 << 32)
    assert int(masks["SigBlk"], 16) == 0
    assert int(masks["SigIgn"], 16) & ~glibc_reserved == 0


def test_command_not_found_is_data(tmp_path: Path) -> None:
    out = _run(tmp_path, ["kdiag-no-such-command"])
    assert out.spawn_error and "No such file" in out.spawn_error
    assert out.exit_code is None and out.signal is None and not out.started


def test_missing_cwd_is_data(tmp_path: Path) -> None:
    req = RunRequest(
        argv=(PY, "-c", "pass"),
        cwd=tmp_path / "nope",
        env=dict(os.environ),
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
    )
    out = run(req)
    assert out.spawn_error and not out.started


# --- crashes --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)",
        "import ctypes; ctypes.string_at(0)",  # a real null dereference
    ],
)
def test_sigsegv(tmp_path: Path, code: str) -> None:
    out = _run(tmp_path, [PY, "-c", code])
    assert out.signal == "SIGSEGV" and out.exit_code is None and not out.core_dumped
    assert "Fatal Python error: Segmentation fault" in out.stderr.read_text()  # PYTHONFAULTHANDLER=1


def test_sigabrt(tmp_path: Path) -> None:
    out = _run(tmp_path, [PY, "-c", "import os; os.abort()"])
    assert out.signal == "SIGABRT"
    assert "Fatal Python error: Aborted" in out.stderr.read_text()


# --- timeouts: SIGINT, then SIGTERM, then SIGKILL -------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_timeout_sigint(tmp_path: Path, mode: str) -> None:
    out = _run(
        tmp_path, [PY, "-c", "import time; time.sleep(1000)"], timeout=SETTLE, sigint_grace=SETTLE, isolation=mode
    )
    assert out.timed_out and out.stop_reason == "timeout" and out.stop_step == "SIGINT"
    assert out.signal == "SIGINT"
    assert "KeyboardInterrupt" in out.stderr.read_text()  # where it hung, printed by Python itself


def test_timeout_sigterm_when_sigint_ignored(tmp_path: Path) -> None:
    code = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(1000)"
    out = _run(tmp_path, [PY, "-c", code], timeout=SETTLE)
    assert out.timed_out and out.stop_step == "SIGTERM" and out.signal == "SIGTERM"


@pytest.mark.parametrize("mode", MODES)
def test_timeout_sigkill_when_int_and_term_ignored(tmp_path: Path, mode: str) -> None:
    code = (
        "import signal, time\n"
        "for s in (signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_IGN)\n"
        "time.sleep(1000)"
    )
    out = _run(tmp_path, [PY, "-c", code], timeout=SETTLE, isolation=mode)
    assert out.timed_out and out.stop_step == "SIGKILL" and out.signal == "SIGKILL"
    assert out.survivors == ()


def test_sh_sleep_forever(tmp_path: Path) -> None:
    out = _run(tmp_path, ["sh", "-c", "sleep 1000"], timeout=0.3)
    assert out.timed_out and out.stop_step in ("SIGINT", "SIGTERM") and out.survivors == ()


def test_unkillable_is_reported_not_waited_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a process stuck in the driver ignores SIGKILL; simulate it by never delivering SIGKILL
    real_kill, real_killpg = os.kill, os.killpg

    def no_sigkill(real):  # type: ignore[no-untyped-def]
        return lambda pid, sig: None if sig == signal.SIGKILL else real(pid, sig)

    monkeypatch.setattr(os, "kill", no_sigkill(real_kill))
    monkeypatch.setattr(os, "killpg", no_sigkill(real_killpg))
    marker = f"kdiag-stuck-{uuid.uuid4().hex}"
    code = (
        "import signal, time\n"
        "for s in (signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_IGN)\n"
        "time.sleep(1000)"
    )
    try:
        out = _run(tmp_path, [PY, "-c", code, marker], timeout=SETTLE, kill_wait=0.2)
        assert out.stop_step == "unkillable" and out.timed_out
        assert out.survivors  # named, so a person can go and look at them
        assert out.exit_code is None and out.signal is None
    finally:
        monkeypatch.undo()
        for pid in _marked(marker):
            # cleanup, not the test: the group id /proc shows may not be one this process can signal (a process
            # group in another PID namespace reads as 0 or is refused), so the process itself goes first
            with contextlib.suppress(OSError):
                real_kill(pid, signal.SIGKILL)
            info = read_proc(pid)
            if info is not None and info.pgid > 0 and info.pgid != os.getpgrp():
                with contextlib.suppress(OSError):
                    real_killpg(info.pgid, signal.SIGKILL)


# --- descendants ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_grandchild_holding_stdout_and_stderr(tmp_path: Path, mode: str) -> None:
    marker = f"kdiag-holder-{uuid.uuid4().hex}"
    code = f"import subprocess, sys; subprocess.Popen({_sleeper(marker)}); print('parent done')"
    out = _run(tmp_path, [PY, "-c", code], isolation=mode)
    assert out.exit_code == 0 and not out.timed_out  # did not wait for the grandchild's EOF
    assert out.stdout.read_text() == "parent done\n"
    assert out.stragglers_killed >= 1 and out.survivors == ()
    assert _marked(marker) == []


@pytest.mark.parametrize("mode", [*MODES, "proc-walk"])
def test_setsid_grandchild_is_killed(tmp_path: Path, mode: str) -> None:
    marker = f"kdiag-setsid-{uuid.uuid4().hex}"
    # the grandchild leaves the process group and the session; the parent lingers a little so
    # even the last fallback (a /proc walk without a subreaper) has seen it
    code = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen({_sleeper(marker)}, start_new_session=True)\n"
        "print(p.pid, flush=True); time.sleep(0.3)"
    )
    out = _run(tmp_path, [PY, "-c", code], isolation=mode)
    assert out.exit_code == 0
    assert out.survivors == ()
    assert _marked(marker) == []
    if mode != "auto" or not HAVE_PIDNS:
        # the pid it printed is ours to check: gone, or a zombie the machine's init has yet to reap
        info = read_proc(int(out.stdout.read_text()))
        assert info is None or info.state in ("Z", "X")


@pytest.mark.parametrize("mode", MODES)
def test_daemon_double_fork_is_killed(tmp_path: Path, mode: str) -> None:
    # the classic daemon: fork, setsid, fork again, the middle exits at once (its orphan is
    # re-parented to the reaper, or the kernel kills it with the namespace)
    marker = f"kdiag-daemon-{uuid.uuid4().hex}"
    code = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(1000)', '{marker}'])\n"
        "    os._exit(0)\n"
        "time.sleep(0.2)"
    )
    out = _run(tmp_path, [PY, "-c", code], isolation=mode)
    assert out.exit_code == 0 and out.survivors == ()
    assert _marked(marker) == []


@pytest.mark.parametrize("mode", MODES)
def test_timeout_kills_setsid_descendant(tmp_path: Path, mode: str) -> None:
    marker = f"kdiag-setsid-timeout-{uuid.uuid4().hex}"
    code = (
        f"import subprocess, sys, time; subprocess.Popen({_sleeper(marker)}, start_new_session=True); time.sleep(1000)"
    )
    out = _run(tmp_path, [PY, "-c", code], timeout=SETTLE, isolation=mode)
    assert out.timed_out and out.survivors == ()
    assert _marked(marker) == []


# --- output -----------------------------------------------------------------------------


def test_100_mb_of_output_is_bounded(tmp_path: Path) -> None:
    cap = 1 << 20
    code = (
        "import sys\n"
        "w = sys.stdout.buffer.write\n"
        "w(b'HEAD-START\\n')\n"
        "chunk = b'x' * 1023 + b'\\n'\n"
        "for _ in range(100 * 1024): w(chunk)\n"
        "w(b'TAIL-END\\n')\n"
    )
    out = _run(tmp_path, [PY, "-c", code], output_cap=cap)
    expected = len(b"HEAD-START\n") + 100 * 1024 * 1024 + len(b"TAIL-END\n")
    assert out.exit_code == 0
    assert out.stdout.total_bytes == expected and out.stdout.truncated
    assert out.stdout.kept_bytes <= cap + 100 and (tmp_path / "stdout").stat().st_size == out.stdout.kept_bytes
    assert out.stdout.omitted_bytes == expected - cap
    data = out.stdout.read_bytes()
    assert data.startswith(b"HEAD-START\n") and data.endswith(b"TAIL-END\n")
    assert b"kdiag: %d bytes omitted" % out.stdout.omitted_bytes in data
    assert not out.stderr.truncated


def test_hole_punching_keeps_the_disk_bounded_while_the_child_writes(tmp_path: Path) -> None:
    cap = 1 << 20
    watch = output_mod.StreamWatch(tmp_path / "s", cap=cap, hard_limit=1 << 40)
    chunk = b"z" * (1 << 20)
    for _ in range(20):
        os.write(watch.fd, chunk)
        assert not watch.check()
    st = os.stat(tmp_path / "s")
    assert st.st_size == 20 << 20  # the length (and the child's offset) is unchanged
    assert st.st_blocks * 512 <= 3 * cap  # but the middle no longer takes disk space
    cap_out = watch.finish()
    assert cap_out.total_bytes == 20 << 20 and cap_out.truncated


def test_runaway_writer_stopped_where_holes_cannot_be_punched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output_mod, "punch_hole", lambda fd, off, n: False)
    code = "import sys\nwhile True: sys.stdout.buffer.write(b'y' * 65536)"
    out = _run(tmp_path, [PY, "-c", code], output_cap=1 << 20, output_hard_limit=8 << 20)
    assert out.stop_reason == "output-limit" and not out.timed_out and out.stop_step == "SIGINT"
    assert out.stdout.total_bytes > 8 << 20 and out.stdout.kept_bytes <= (1 << 20) + 100


def test_non_utf8_bytes_are_kept(tmp_path: Path) -> None:
    raw = b"ok \xff\xfe bad \x80 end\n"
    out = _run(tmp_path, [PY, "-c", f"import sys; sys.stdout.buffer.write({raw!r})"])
    assert out.stdout.read_bytes() == raw
    assert out.stdout.read_text() == "ok \ufffd\ufffd bad \ufffd end\n"
    assert out.stdout.read_text(errors="surrogateescape").encode("utf-8", "surrogateescape") == raw


def test_stdout_closed_early(tmp_path: Path) -> None:
    code = "import os, sys\nprint('before', flush=True)\nos.close(1)\nsys.stderr.write('after close\\n')\nos._exit(0)"
    out = _run(tmp_path, [PY, "-c", code])
    assert out.exit_code == 0
    assert out.stdout.read_text() == "before\n" and out.stderr.read_text() == "after close\n"


def test_stdout_closed_then_written(tmp_path: Path) -> None:
    # the write after the close fails inside the child; that is the child's business, and data
    code = "import os, sys\nos.close(1)\nsys.stderr.write('err\\n')\nprint('lost')"
    out = _run(tmp_path, [PY, "-c", code])
    assert out.exit_code not in (None, 0) and out.stderr.read_text().startswith("err\n")
    assert out.stdout.total_bytes == 0


def test_peak_rss_recorded(tmp_path: Path) -> None:
    out = _run(tmp_path, [PY, "-c", "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"])
    assert out.exit_code == 0 and out.max_rss_kib is not None and out.max_rss_kib > 150_000


def test_overrides_are_recorded(tmp_path: Path) -> None:
    req = RunRequest(
        argv=(PY, "-c", "pass"),
        cwd=tmp_path,
        env=dict(os.environ),
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
        env_overrides={"CUDA_LAUNCH_BLOCKING": "1"},
    )
    assert run(req).env_overrides == {"CUDA_LAUNCH_BLOCKING": "1"}


def test_pidns_requested_where_unavailable_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process, "detect_isolation", lambda: ("subreaper", ()))
    assert process._resolve("pidns") == ("subreaper", ())
    assert process._resolve("auto") == ("subreaper", ())
