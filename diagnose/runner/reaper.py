"""The attempt's own init: starts the target, reaps everything under it, reports one line.

``process.run`` never starts the target directly.  It starts this file as a script (standard
library only, nothing from kdiag is imported, so it starts in about 10 ms)::

    [unshare --pid --fork --kill-child --mount-proc]  python -E -s -S reaper.py \\
        --status-fd 5 --mode pidns --kill-wait 2.0 --core-dumps 0 -- <target argv>

Inside a PID namespace the reaper is pid 1: every orphan of the attempt is re-parented to it and,
when it exits, the kernel kills whatever is left in the namespace, even a process that called
``setsid``.  Without a namespace it makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``),
which gives the same re-parenting inside an ordinary process tree; with neither, the parent's own
periodic /proc walk is what finds escaped descendants.

Why a separate init and not the target as pid 1: a namespace's init only receives the signals it
installed a handler for, so ``sleep`` as pid 1 would ignore SIGTERM and a self-sent SIGSEGV or
SIGABRT would be dropped; the target must be an ordinary process.

The reaper ignores SIGINT and SIGTERM (the runner sends them to the whole process group, and they
are meant for the target), starts the target with every signal disposition reset to the default
and an empty signal mask, reaps every child that exits, and once the target has exited kills and
reaps whatever is still running below it (bounded by ``--kill-wait``).  It never writes to stdout
or stderr, which belong to the target.

The module also holds the small /proc helpers the parent uses (:func:`read_proc`,
:func:`descendants`), so there is one copy of them.
"""

from __future__ import annotations

# Only modules that are already loaded at interpreter start-up, or nearly so: the reaper's
# start-up is the runner's overhead on every attempt (json, typing and contextlib cost ~8 ms,
# and the "signal" wrapper pulls in enum for ~3 ms, so the C module it wraps is used instead).
import _signal as signal
import os
import resource
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


class ProcInfo:
    """One process as /proc/<pid>/stat shows it."""

    __slots__ = ("pgid", "pid", "ppid", "sid", "starttime", "state")

    def __init__(self, pid: int, ppid: int, pgid: int, sid: int, state: str, starttime: int) -> None:
        self.pid = pid
        self.ppid = ppid
        self.pgid = pgid
        self.sid = sid
        self.state = state  # R, S, D, Z, T, ... (Z and X are dead)
        self.starttime = starttime  # clock ticks since boot: with the pid it names one process, not a reused pid

    def __repr__(self) -> str:
        return f"ProcInfo(pid={self.pid}, ppid={self.ppid}, pgid={self.pgid}, state={self.state!r})"


def read_proc(pid: int) -> ProcInfo | None:
    """``/proc/<pid>/stat`` parsed, or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: the fields start after the last ')'
    rest = data[data.rindex(b")") + 2 :].split()
    try:
        return ProcInfo(pid, int(rest[1]), int(rest[2]), int(rest[3]), rest[0].decode(), int(rest[19]))
    except (IndexError, ValueError):
        return None


_children_files: bool | None = None


def _children(pid: int) -> list[int] | None:
    """Direct children of every thread of ``pid`` (None: this kernel has no ``children`` files)."""
    global _children_files
    if _children_files is None:
        _children_files = os.path.exists(f"/proc/self/task/{os.getpid()}/children")  # CONFIG_PROC_CHILDREN
    if not _children_files:
        return None
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    out: list[int] = []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out.extend(int(x) for x in f.read().split())
        except OSError:
            continue  # the thread (or the process) ended while we looked
    return out


def descendants(root: int) -> dict[int, ProcInfo]:
    """Every live or zombie process below ``root`` (not ``root`` itself), found by a PPID walk."""
    found: dict[int, ProcInfo] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        kids = _children(pid)
        if kids is None:
            return _descendants_by_scan(root)
        for kid in kids:
            if kid not in found and kid != root:
                info = read_proc(kid)
                if info is not None:
                    found[kid] = info
                    todo.append(kid)
    return found


def _descendants_by_scan(root: int) -> dict[int, ProcInfo]:
    """The same walk over a full /proc scan, for kernels without ``task/*/children``."""
    by_parent: dict[int, list[ProcInfo]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = read_proc(int(name))
            if info is not None:
                by_parent.setdefault(info.ppid, []).append(info)
    found: dict[int, ProcInfo] = {}
    todo = [root]
    while todo:
        for info in by_parent.get(todo.pop(), []):
            if info.pid not in found and info.pid != root:
                found[info.pid] = info
                todo.append(info.pid)
    return found


def is_alive(pid: int, starttime: int) -> bool:
    """True while that very process (not a later one with a reused pid) exists and is not a zombie."""
    info = read_proc(pid)
    return info is not None and info.starttime == starttime and info.state not in ("Z", "X")


def _set_subreaper() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _reap_nohang() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _sweep(kill_wait: float) -> tuple[int, list[int]]:
    """Kill and reap everything still below us; returns (how many were killed, pids that would not die)."""
    me = os.getpid()
    killed: set[tuple[int, int]] = set()
    end = time.monotonic() + kill_wait
    while True:
        _reap_nohang()
        live = [p for p in descendants(me).values() if p.state not in ("Z", "X")]
        if not live:
            _reap_nohang()
            return len(killed), []
        for p in live:
            killed.add((p.pid, p.starttime))
            try:  # noqa: SIM105 - contextlib costs start-up time here
                os.kill(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > end:
            return len(killed), sorted(p.pid for p in live)
        time.sleep(0.005)


def _spawn(target: list[str]) -> tuple[int, str]:
    """fork + exec with every signal at its default and nothing blocked; exec errors come back by pipe.

    Not posix_spawn: glibc's leaves its two internal signals (32, 33) ignored in the new program,
    and an ignored disposition (ours for INT/TERM/HUP, Python's for PIPE/XFSZ, or one inherited from
    a nohup'd shell) would otherwise survive exec.
    """
    r, w = os.pipe()  # close-on-exec: an empty read means exec succeeded
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            for sig in signal.valid_signals():
                try:  # noqa: SIM105
                    signal.signal(sig, signal.SIG_DFL)
                except (OSError, ValueError):
                    pass  # SIGKILL, SIGSTOP
            signal.pthread_sigmask(signal.SIG_SETMASK, ())
            os.execvp(target[0], target)
        except BaseException as e:
            os.write(w, f"{type(e).__name__}: {e}".encode())
        finally:
            os._exit(127)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        error = f.read().decode(errors="replace")
    if error:
        os.waitpid(pid, 0)
    return pid, error


def _parse(argv: list[str]) -> tuple[int, str, float, bool, list[str]]:
    sep = argv.index("--")
    opts = dict(zip(argv[:sep:2], argv[1:sep:2], strict=True))
    cores = opts.get("--core-dumps", "0") == "1"
    return int(opts["--status-fd"]), opts["--mode"], float(opts["--kill-wait"]), cores, argv[sep + 1 :]


def main(argv: list[str]) -> int:
    # the runner signals the whole group; these are meant for the target, never for us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    status_fd, mode, kill_wait, core_dumps, target = _parse(argv)
    os.set_inheritable(status_fd, False)  # the target must not hold our report pipe
    if not core_dumps:
        # inherited by the target: a crashed GPU process would otherwise write gigabytes of core
        _, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    report: dict[str, object] = {}
    try:
        if mode == "pidns" and os.getpid() != 1:
            mode = "subreaper"  # asked for a namespace but not in one: fall back, and say so
        if mode == "subreaper" and not _set_subreaper():
            mode = "proc-walk"
        report["mode"] = mode
        pid, error = _spawn(target)
        if error:
            report["spawn_error"] = error
            return _finish(status_fd, report)
        while True:
            wpid, status, _ = os.wait4(-1, 0)  # reap every orphan as it exits, not only the target
            if wpid == pid:
                report["wait_status"] = status
                break
        report["stragglers"], report["unkillable"] = _sweep(kill_wait)
    except BaseException as e:  # the reaper must always report, never die silently
        report["reaper_error"] = f"{type(e).__name__}: {e}"
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # the target and everything we reaped
    report.update(maxrss_kib=ru.ru_maxrss, utime=ru.ru_utime, stime=ru.ru_stime)
    return _finish(status_fd, report)


def _finish(status_fd: int, report: dict[str, object]) -> int:
    # a Python literal (ints, floats, strings), read back with ast.literal_eval: no json import here
    try:  # noqa: SIM105
        os.write(status_fd, repr(report).encode() + b"\n")
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
