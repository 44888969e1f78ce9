"""Run one attempt under controlled conditions: ``run(RunRequest) -> Outcome``; a failed run is data.

``run`` never raises for a non-zero exit, a signal, a timeout, a flood of output or a target that
cannot be started; all of that is in the :class:`Outcome`.

How an attempt is started (see ``reaper.py`` for the init that sits between us and the target)::

    kdiag ─ Popen(start_new_session) ─► [unshare --pid --fork --kill-child --mount-proc] ─► reaper ─► target
                 stdin /dev/null, stdout and stderr to two files, a pipe for the reaper's report

- The whole attempt is one new session and process group; on timeout the group gets SIGINT
  (Python prints where it was stuck), then SIGTERM, then SIGKILL, with short grace periods
  (tox's ``execute/local_sub_process`` does the same for one process; we do it for the group).
  Descendants that left the group (``setsid``) get the same signals by pid.
- Escaped descendants: in a PID namespace (detected once per process, cached) nothing survives
  the reaper; without one the reaper is a child subreaper, so orphans stay below it; and the
  parent walks the tree every tick, so whatever it saw and is still alive after the run is killed
  by pid (pid and start time together, so a reused pid is never hit).
- After SIGKILL every wait is bounded: a process stuck in the driver (D state) ends the attempt
  as ``stop_step == "unkillable"`` with its pid in ``survivors``, and ``run`` returns.
"""

from __future__ import annotations

import ast
import contextlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from diagnose.runner import reaper
from diagnose.runner.isolation import REAPER_PYTHON, detect_isolation
from diagnose.runner.output import StreamCapture, StreamWatch

Isolation = Literal["auto", "pidns", "subreaper", "proc-walk"]
StopStep = Literal["none", "SIGINT", "SIGTERM", "SIGKILL", "unkillable"]

REAPER = str(Path(reaper.__file__).resolve())
TICK = 0.05  # how often output sizes and the process tree are looked at while the child runs
REPORT_TO_EXIT = 1.0  # the reaper reported; it (and unshare) must be gone this soon after
LAST_KILL_WAIT = 0.5  # after SIGKILL to the wrappers as well, before calling it unkillable


@dataclass(frozen=True)
class RunRequest:
    argv: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str]  # the complete environment (childenv.child_env builds it)
    stdout_path: Path
    stderr_path: Path
    timeout: float | None = 600.0  # wall clock, seconds; None: no limit
    sigint_grace: float = 1.0  # SIGINT → SIGTERM
    sigterm_grace: float = 1.0  # SIGTERM → SIGKILL
    kill_wait: float = 2.0  # SIGKILL → "unkillable"
    output_cap: int = 4 << 20  # bytes kept per stream: a quarter from the head, the rest from the tail
    output_hard_limit: int = 1 << 30  # only where holes cannot be punched: past this, the run is stopped
    isolation: Isolation = "auto"  # "proc-walk" (no subreaper either) exists to test the last fallback
    core_dumps: bool = False  # a crashed CUDA process dumps gigabytes of core; off unless asked for
    env_overrides: Mapping[str, str | None] = field(default_factory=dict)  # recorded in the Outcome


@dataclass(frozen=True)
class Outcome:
    argv: tuple[str, ...]
    exit_code: int | None  # None when a signal ended it or it never started
    signal: str | None  # "SIGSEGV", ...
    core_dumped: bool
    timed_out: bool
    stop_step: StopStep  # the last stop signal sent before it ended ("none": it ended on its own)
    stop_reason: str | None  # "timeout", "output-limit", or None
    duration_s: float  # monotonic, start to end of the target
    stdout: StreamCapture
    stderr: StreamCapture
    max_rss_kib: int | None  # peak resident set of the target and everything reaped below it
    user_cpu_s: float | None
    system_cpu_s: float | None
    env_overrides: Mapping[str, str | None]
    isolation: str  # "pidns", "subreaper" or "proc-walk": what actually contained the attempt
    pid_namespace: bool
    descendants_seen: int  # processes below the target the parent saw while it ran
    stragglers_killed: int  # descendants still running when the target ended, killed by us
    survivors: tuple[int, ...]  # pids still alive after every kill (should be empty)
    spawn_error: str | None = None  # the target could not be started (no such file, bad cwd, ...)
    runner_error: str | None = None  # kdiag's own machinery failed (the report is then partial)

    @property
    def started(self) -> bool:
        return self.spawn_error is None


def _resolve(isolation: Isolation) -> tuple[str, tuple[str, ...]]:
    if isolation in ("subreaper", "proc-walk"):
        return isolation, ()
    mode, prefix = detect_isolation()
    if isolation == "pidns" and mode != "pidns":
        return "subreaper", ()  # asked for, not available: the Outcome records what was used
    return mode, prefix


# --- the run ---------------------------------------------------------------------------------


def run(request: RunRequest) -> Outcome:
    """Start ``request.argv``, supervise it to its end, and describe what happened."""
    mode, prefix = _resolve(request.isolation)
    for path in (request.stdout_path, request.stderr_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    streams = (
        StreamWatch(request.stdout_path, cap=request.output_cap, hard_limit=request.output_hard_limit),
        StreamWatch(request.stderr_path, cap=request.output_cap, hard_limit=request.output_hard_limit),
    )
    status_r, status_w = os.pipe()
    cmd = [
        *prefix,
        *REAPER_PYTHON,
        REAPER,
        "--status-fd",
        str(status_w),
        "--mode",
        mode,
        "--kill-wait",
        repr(request.kill_wait),
        "--core-dumps",
        "1" if request.core_dumps else "0",
        "--",
        *request.argv,
    ]
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=request.cwd,
            env=dict(request.env),
            stdin=subprocess.DEVNULL,
            stdout=streams[0].fd,
            stderr=streams[1].fd,
            pass_fds=(status_w,),
            start_new_session=True,
        )
    except (OSError, ValueError, TypeError) as e:
        os.close(status_r)
        return _not_started(request, mode, streams, f"{type(e).__name__}: {e}", time.monotonic() - started)
    finally:
        os.close(status_w)
    attempt = _Attempt(request, proc, status_r, streams, pidns=bool(prefix))
    try:
        attempt.supervise(started)
    except Exception as e:  # our own bug must not leave the attempt running: stop it, report it
        attempt.runner_error = f"{type(e).__name__}: {e}"
        attempt.emergency_stop()
    try:
        return attempt.outcome(started, mode)
    finally:
        os.close(status_r)


def _not_started(request: RunRequest, mode: str, streams: tuple[StreamWatch, ...], error: str, dt: float) -> Outcome:
    out, err = (s.finish() for s in streams)
    return Outcome(
        argv=tuple(request.argv),
        exit_code=None,
        signal=None,
        core_dumped=False,
        timed_out=False,
        stop_step="none",
        stop_reason=None,
        duration_s=dt,
        stdout=out,
        stderr=err,
        max_rss_kib=None,
        user_cpu_s=None,
        system_cpu_s=None,
        env_overrides=dict(request.env_overrides),
        isolation=mode,
        pid_namespace=False,
        descendants_seen=0,
        stragglers_killed=0,
        survivors=(),
        spawn_error=error,
    )


# escalation stages; the last one also kills unshare and the reaper, then we stop waiting
_STAGES: tuple[tuple[StopStep, signal.Signals], ...] = (
    ("SIGINT", signal.SIGINT),
    ("SIGTERM", signal.SIGTERM),
    ("SIGKILL", signal.SIGKILL),
    ("SIGKILL", signal.SIGKILL),
)


class _Attempt:
    """The supervision state of one running attempt."""

    def __init__(
        self,
        request: RunRequest,
        proc: subprocess.Popen[bytes],
        status_r: int,
        streams: tuple[StreamWatch, ...],
        *,
        pidns: bool,
    ) -> None:
        self.request = request
        self.proc = proc
        self.status_r = status_r
        self.status_open = True
        self.status_buf = b""
        self.reported_at: float | None = None
        self.streams = streams
        self.pidns = pidns
        self.tracked: dict[int, int] = {}  # pid -> start time of every descendant ever seen
        self.wrappers: set[int] = {proc.pid}  # unshare and the reaper: never signalled by pid
        self.stage = -1  # index into _STAGES of the last stop step taken
        self.stop_reason: str | None = None
        self.timed_out = False
        self.unkillable = False
        self.wait_status: int | None = None
        self.rusage: Any = None
        self.ended: float | None = None
        self.runner_error: str | None = None
        self.stragglers_after = 0
        self.survivors: tuple[int, ...] = ()
        try:
            self.pidfd: int | None = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self.pidfd = None  # old kernel: poll with short sleeps instead

    # -- waiting --

    def _exited(self, wait: float) -> bool:
        fds = [fd for fd in (self.pidfd, self.status_r if self.status_open else None) if fd is not None]
        if self.pidfd is None:
            wait = min(wait, 0.005)
        if fds:
            ready, _, _ = select.select(fds, [], [], wait)
            if self.status_r in ready:
                self._read_status()
        elif wait > 0:
            time.sleep(wait)
        pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.ended = time.monotonic()
        self.wait_status, self.rusage = status, ru
        self.proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait for it again
        return True

    def _read_status(self) -> None:
        try:
            chunk = os.read(self.status_r, 65536)
        except BlockingIOError:
            return
        if not chunk:
            self.status_open = False
        self.status_buf += chunk
        if b"\n" in self.status_buf and self.reported_at is None:
            self.reported_at = time.monotonic()

    # -- the process tree --

    def _track(self) -> dict[int, reaper.ProcInfo]:
        tree = reaper.descendants(self.proc.pid)
        if self.pidns:
            self.wrappers.update(p.pid for p in tree.values() if p.ppid == self.proc.pid)
        for p in tree.values():
            if p.pid not in self.wrappers:
                self.tracked.setdefault(p.pid, p.starttime)
        return tree

    def _signal(self, sig: signal.Signals, *, wrappers_too: bool) -> None:
        tree = self._track()
        group = self.proc.pid
        if sig != signal.SIGKILL or wrappers_too:
            # unshare blocks INT/TERM and the reaper ignores them, so the group is the target's
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, sig)
        for p in tree.values():
            if p.pid in self.wrappers:
                continue
            # SIGKILL by pid keeps the reaper alive to sweep and report; INT/TERM by pid only
            # reach those that left the group
            if sig == signal.SIGKILL or p.pgid != group:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(p.pid, sig)

    def _escalate(self, now: float) -> float | None:
        """Take the next stop step; returns when the one after is due (None: give up waiting)."""
        self.stage += 1
        if self.stage >= len(_STAGES):
            self.unkillable = True
            return None
        _, sig = _STAGES[self.stage]
        self._signal(sig, wrappers_too=self.stage == len(_STAGES) - 1)
        r = self.request
        grace = (r.sigint_grace, r.sigterm_grace, r.kill_wait + 0.5, LAST_KILL_WAIT)[self.stage]
        return now + grace

    def supervise(self, started: float) -> None:
        r = self.request
        due = None if r.timeout is None else started + r.timeout
        while True:
            now = time.monotonic()
            wait = TICK if due is None else max(0.0, min(TICK, due - now))
            if self._exited(wait):
                return
            now = time.monotonic()
            self._track()
            flooded = [s.check() for s in self.streams]
            if self.stage < 0 and any(flooded):
                self.stop_reason = "output-limit"
                due = now
            # the target is done and the reaper said so, yet it has not exited: something below
            # it will not die (pidns: init's exit waits for the whole namespace to be gone)
            stuck = self.reported_at is not None and now - self.reported_at > REPORT_TO_EXIT
            if stuck and self.stage < len(_STAGES) - 1:
                self.stage = len(_STAGES) - 2
                due = now
            if due is not None and now >= due:
                if self.stage < 0 and self.stop_reason is None:
                    self.stop_reason, self.timed_out = "timeout", True
                due = self._escalate(now)
                if due is None:
                    return

    def emergency_stop(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self._exited(LAST_KILL_WAIT)

    # -- after the run --

    def _kill_leftovers(self) -> None:
        """Whatever we saw below the target and is still alive now gets SIGKILL by pid."""
        with contextlib.suppress(OSError):
            self._track()
        alive = {pid: st for pid, st in self.tracked.items() if reaper.is_alive(pid, st)}
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self.stragglers_after = len(alive)
        end = time.monotonic() + (self.request.kill_wait if alive else 0.0)
        while alive and time.monotonic() < end:
            time.sleep(0.005)
            alive = {pid: st for pid, st in alive.items() if reaper.is_alive(pid, st)}
        self.survivors = tuple(sorted(alive))

    def outcome(self, started: float, mode: str) -> Outcome:
        if self.status_open:
            os.set_blocking(self.status_r, False)
            while self.status_open:
                before = len(self.status_buf)
                self._read_status()
                if self.status_open and len(self.status_buf) == before:
                    break
        if self.pidfd is not None:
            os.close(self.pidfd)
        self._kill_leftovers()
        report = _parse_report(self.status_buf)
        out, err = (s.finish() for s in self.streams)

        wait_status = report.get("wait_status")
        if not isinstance(wait_status, int):
            wait_status = self.wait_status  # no report: the reaper itself was killed
        exit_code = sig_name = None
        core = False
        if wait_status is not None and "spawn_error" not in report:
            if os.WIFSIGNALED(wait_status):
                sig_name = _signal_name(os.WTERMSIG(wait_status))
                core = os.WCOREDUMP(wait_status)
            elif os.WIFEXITED(wait_status):
                exit_code = os.WEXITSTATUS(wait_status)
        if "spawn_error" in report:
            rss = ut = st = None
        elif "maxrss_kib" in report:
            rss, ut, st = int(report["maxrss_kib"]), float(report["utime"]), float(report["stime"])
        elif self.rusage is not None:
            rss, ut, st = self.rusage.ru_maxrss, self.rusage.ru_utime, self.rusage.ru_stime
        else:
            rss = ut = st = None
        step: StopStep = "unkillable" if self.unkillable else ("none" if self.stage < 0 else _STAGES[self.stage][0])
        errors = [e for e in (self.runner_error, report.get("reaper_error")) if e]
        if not report and not self.unkillable and self.stage < len(_STAGES) - 1:
            errors.append("the reaper exited without a report")
        used = str(report.get("mode", mode))
        return Outcome(
            argv=tuple(self.request.argv),
            exit_code=exit_code,
            signal=sig_name,
            core_dumped=core,
            timed_out=self.timed_out,
            stop_step=step,
            stop_reason=self.stop_reason,
            duration_s=(self.ended or time.monotonic()) - started,
            stdout=out,
            stderr=err,
            max_rss_kib=rss,
            user_cpu_s=ut,
            system_cpu_s=st,
            env_overrides=dict(self.request.env_overrides),
            isolation=used,
            pid_namespace=self.pidns and used == "pidns",
            descendants_seen=len(self.tracked),
            stragglers_killed=int(report.get("stragglers", 0)) + self.stragglers_after,
            survivors=self.survivors,
            spawn_error=report.get("spawn_error"),
            runner_error="; ".join(str(e) for e in errors) or None,
        )


def _parse_report(buf: bytes) -> dict[str, Any]:
    line = buf.split(b"\n", 1)[0]
    try:
        report = ast.literal_eval(line.decode("utf-8", "replace"))  # literals only, never code
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {}
    return report if isinstance(report, dict) else {}


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"SIG{num}"
