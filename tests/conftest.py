"""Tests that need hardware or tools this machine may lack are deselected and counted, never skipped.

``@pytest.mark.gpu``: needs an NVIDIA GPU (NVML sees at least one device).
``@pytest.mark.toolkit``: needs the CUDA 13 toolkit (nvcc on PATH, libcudart under /usr/local/cuda-13.0).
Every other test runs everywhere; the terminal summary says how many of each kind were left out and why.

``corpus_run``: a ``kdiag run`` of a corpus file, once per session for each set of options (once for all
pytest-xdist workers together: the first worker to ask runs it, the others wait for it and read its report).
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import resource
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

LIBCUDART = Path("/usr/local/cuda-13.0/lib64/libcudart.so")


@cache
def gpu_count() -> int:
    try:
        import pynvml  # nvidia-ml-py, a kdiag dependency

        pynvml.nvmlInit()
    except Exception:
        return 0
    try:
        return int(pynvml.nvmlDeviceGetCount())
    except Exception:
        return 0
    finally:
        pynvml.nvmlShutdown()


def missing(marker: str) -> str | None:
    """Why tests with this marker cannot run here (None: they can)."""
    if marker == "gpu":
        return None if gpu_count() > 0 else "no GPU"
    if marker == "toolkit":
        if shutil.which("nvcc") is None:
            return "nvcc not on PATH"
        return None if LIBCUDART.exists() else f"{LIBCUDART} not found"
    return None


_LABELS = {"gpu": "GPU-only", "toolkit": "CUDA-toolkit"}
_DESELECTED: dict[str, tuple[int, str]] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    keep, drop = [], []
    counts: dict[str, int] = {}
    for item in items:
        why = [m for m in _LABELS if item.get_closest_marker(m) is not None and missing(m)]
        if why:
            drop.append(item)
            counts[why[0]] = counts.get(why[0], 0) + 1
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    scope: dict[str, str] = {}
    for item in keep:
        if _uses_a_module_fixture(item):  # one worker builds it (pytest-xdist --dist loadgroup)
            group = item.nodeid.split("::", 1)[0]
            item.add_marker(pytest.mark.xdist_group(group))
            scope[item.nodeid] = group
    # the longest work first (tests/durations.tsv; a module-fixture group counts as one piece of work, as the
    # scheduler hands it out whole): pytest-xdist hands out the tests in this order, so the long ones start while
    # there is other work for the other workers, not at the end of the run where one worker would finish them
    # alone.  Without figures, the real compiles (nvcc on torch's extension headers) first.  A stable sort.
    known = _durations()
    cost: dict[str, float] = {}
    for item in items:
        key = scope.get(item.nodeid, item.nodeid)
        toolkit = item.get_closest_marker("toolkit") is not None
        cost[key] = cost.get(key, 0.0) + known.get(item.nodeid, 20.0 if toolkit and not known else 0.1)
    items.sort(key=lambda item: -cost[scope.get(item.nodeid, item.nodeid)])
    for marker, n in counts.items():
        _DESELECTED[marker] = (n, missing(marker) or "")


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist's --dist loadgroup mark, registered here too so that --strict-markers accepts it without xdist
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist runs the tests of one group on one worker")


def pytest_sessionfinish(session: pytest.Session) -> None:
    # a pytest-xdist worker collects (and deselects) for itself: it hands its counts to the controller
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["kdiag_deselected"] = {m: list(v) for m, v in _DESELECTED.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    # the controller (which collects nothing itself): every worker collected the same tests, so one worker's
    # counts are the run's
    for marker, (n, why) in (getattr(node, "workeroutput", None) or {}).get("kdiag_deselected", {}).items():
        _DESELECTED[marker] = (n, why)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """With KDIAG_TEST_CPU=FILE, each test's CPU seconds (setup, call and teardown; this process and the children
    it waited for) are appended to FILE as ``seconds<TAB>node id``: where the suite's time goes, whatever else the
    machine runs (wall-clock durations count the waits for a core as well)."""
    out = os.environ.get("KDIAG_TEST_CPU")
    if not out:
        yield
        return
    before = _cpu_seconds()
    yield
    with open(out, "a") as fh:
        fh.write(f"{_cpu_seconds() - before:.2f}\t{item.nodeid}\n")


@cache
def _durations() -> dict[str, float]:
    """Node id → CPU seconds of one suite run (tests/durations.tsv, written by scripts/update-test-durations)."""
    path = Path(__file__).resolve().parent / "durations.tsv"
    out: dict[str, float] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        value, _, node = line.partition("\t")
        try:
            out[node] = float(value)
        except ValueError:
            continue  # the header, or a line this reader does not know
    return out


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    """Whether the test reads a module-scoped fixture (a wheel built, a corpus checked): the tests of such a
    module run on one pytest-xdist worker, so the fixture is built once, not once per worker."""
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", None) or {}
    return any(fd and getattr(fd[-1], "scope", None) == "module" for fd in defs.values())


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for marker, (n, why) in _DESELECTED.items():
        terminalreporter.write_line(f"{n} {_LABELS[marker]} test{'s' if n != 1 else ''} deselected: {why}")


_CORPUS_RUNS: dict[tuple[str, ...], tuple[int, dict[str, Any], str]] = {}


def shared_temp(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder that every pytest-xdist worker of this run shares (each worker's own
    base folder lies inside it); without xdist, the session's base folder.  Fresh for every pytest run."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


@pytest.fixture(scope="session")
def corpus_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """corpus_run(path, probes="none", timeout=120, extra=()) -> (exit code, JSON report, stderr).

    ``kdiag run PATH --format json --cpu --no-record --probes P --timeout T EXTRA``, the real CLI with real
    children (each imports torch; Triton runs interpreted: seconds to tens of seconds a run).  One run per
    (path, probes, timeout, extra) in the session: the corpus label tests, the numerics tests and the probe
    tests assert different things about the same seeded runs, and read one report.  Under pytest-xdist the
    run is shared by the workers through the session's shared temporary folder, under a file lock per run.
    """
    cache = shared_temp(request.config, tmp_path_factory) / "corpus-runs"
    cache.mkdir(exist_ok=True)

    def run(path: Path | str, probes: str = "none", timeout: int = 120, extra: tuple[str, ...] = ()):
        key = (str(Path(path).resolve()), probes, str(timeout), *extra)
        if key not in _CORPUS_RUNS:
            name = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:20]
            with open(cache / f"{name}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the worker dies
                saved = cache / f"{name}.json"
                if not saved.exists():
                    from diagnose.cli import main

                    out, err = io.StringIO(), io.StringIO()
                    runs = cache / name
                    argv = ["run", str(path), "--format", "json", "--cpu", "--no-record", "--runs-dir", str(runs)]
                    code = main([*argv, "--probes", probes, "--timeout", str(timeout), *extra], out=out, err=err)
                    assert out.getvalue().strip(), err.getvalue()
                    report = json.loads(out.getvalue())
                    part = cache / f"{name}.part"
                    part.write_text(json.dumps({"key": key, "code": code, "report": report, "stderr": err.getvalue()}))
                    part.replace(saved)
                got = json.loads(saved.read_text())
            assert tuple(got["key"]) == key, (got["key"], key)
            _CORPUS_RUNS[key] = got["code"], got["report"], got["stderr"]
        return _CORPUS_RUNS[key]

    return run


KERNELBENCH = Path(__file__).resolve().parent.parent / "corpus" / "kernelbench"


@pytest.fixture(scope="session")
def kb_run(corpus_run):
    """kb_run(case, *extra) -> (exit code, JSON report, stderr): ``kdiag run SUB --reference REF`` on a pair of
    corpus/kernelbench/, with --probes none, --timeout 120, --cpu, --no-record and EXTRA, through ``corpus_run``
    (one run per case and options for every test that asks for it)."""

    def run(name: str, *extra: str) -> tuple[int, dict[str, Any], str]:
        case = KERNELBENCH / name
        return corpus_run(case / "submission.py", extra=("--reference", str(case / "reference.py"), *extra))

    return run


@pytest.fixture(scope="session", autouse=True)
def compile_once(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """One real compile per source in the session: a ``kdiag run``'s compile check (nvcc on torch's extension
    headers, the host C++ syntax check: tens of seconds each) of a source another test's run already compiled
    with the same command reads that compile's outcome instead of compiling it again.  Keyed by the command (the
    run's build folder left out), the time limit and the source's own text; shared by the pytest-xdist workers
    under a file lock, like ``corpus_run``.  A compile that timed out or could not start is never reused; the
    build folder gets the compile's stdout, stderr and output file, the build folder's path in them the new one's."""
    import dataclasses
    import pickle

    from diagnose.run import compile_check as CC

    cache = shared_temp(request.config, tmp_path_factory) / "compiles"
    cache.mkdir(exist_ok=True)
    real = CC.check

    def check(found: Any, build: Path, *args: Any, **kw: Any) -> Any:
        # check(found, build, arch, nvcc, snapshot, run, cxx=None): only a kdiag run's own runner is cached (a test
        # that calls check with a runner of its own gets it called)
        run = args[3] if len(args) > 3 else kw["run"]
        if not getattr(run, "__qualname__", "").startswith("_compile_check."):
            return real(found, build, *args, **kw)
        old = str(build)

        def cached(argv: list[str], folder: Path, timeout: float) -> Any:
            source = Path(argv[-1])
            inside = source.is_file() and str(source).startswith(old + "/") and str(folder).startswith(old + "/")
            if not inside or '#include "' in source.read_text():  # a header of its own: the text is not all of it
                return run(argv, folder, timeout)
            plain = [a.replace(old, "<build>") for a in argv]
            text = json.dumps([plain, str(folder).replace(old, "<build>"), timeout, source.read_text()])
            name = hashlib.sha256(text.encode()).hexdigest()[:20]
            with open(cache / f"{name}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                saved = cache / f"{name}.pickle"
                if not saved.exists():
                    got = run(argv, folder, timeout)
                    if got.timed_out or not got.started or got.runner_error:
                        return got
                    outputs = [a for a in argv if a.startswith(old + "/") and a != str(source) and Path(a).is_file()]
                    keep = {"outcome": got, "build": old, "outputs": [(a, Path(a).read_bytes()) for a in outputs]}
                    keep["streams"] = [got.stdout.path.read_bytes(), got.stderr.path.read_bytes()]
                    saved.with_suffix(".part").write_bytes(pickle.dumps(keep))
                    saved.with_suffix(".part").replace(saved)
                    return got
                keep = pickle.loads(saved.read_bytes())
            was = keep["build"]
            folder.mkdir(parents=True, exist_ok=True)
            for a, data in keep["outputs"]:
                Path(a.replace(was, old)).write_bytes(data)
            got = keep["outcome"]
            streams = []
            for capture, data in zip((got.stdout, got.stderr), keep["streams"], strict=True):
                path = Path(str(capture.path).replace(was, old))
                path.write_bytes(data.replace(was.encode(), old.encode()))
                size = path.stat().st_size
                same = {"kept_bytes": size} if capture.truncated else {"kept_bytes": size, "total_bytes": size}
                streams.append(dataclasses.replace(capture, path=path, **same))
            return dataclasses.replace(got, argv=tuple(argv), stdout=streams[0], stderr=streams[1])

        if len(args) > 3:
            return real(found, build, *args[:3], cached, *args[4:], **kw)
        return real(found, build, *args, **{**kw, "run": cached})

    CC.check = check
    yield
    CC.check = real
