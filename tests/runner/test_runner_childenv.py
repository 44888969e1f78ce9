"""child_env is a pure function: dict in, dict out (pipx's tests/test_subprocess_env.py style)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.runner.childenv import DROPPED, child_dirs, child_env, ensure_child_dirs

RUN = Path("/runs/abc")
BASE = {
    "PATH": "/usr/local/bin:/usr/bin",
    "HOME": "/home/k",
    "LANG": "en_US.UTF-8",
    "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
    "PYTHONPATH": "/home/k/src",
    "PYTHONSTARTUP": "/home/k/.pythonrc",
    "PYTHONINSPECT": "1",
    "PYTHONOPTIMIZE": "2",
    "PYTHONWARNINGS": "error",
    "LD_PRELOAD": "/usr/lib/libjemalloc.so",
    "CUDA_LAUNCH_BLOCKING": "1",
    "TRITON_INTERPRET": "1",
    "PYTEST_ADDOPTS": "-x",
    "TRITON_CACHE_DIR": "/home/k/.triton/cache",
}


def test_keeps_what_the_child_needs() -> None:
    env = child_env(BASE, {}, run_dir=RUN)
    for name in ("PATH", "HOME", "LANG", "LD_LIBRARY_PATH", "PYTHONPATH"):
        assert env[name] == BASE[name]


@pytest.mark.parametrize(
    "name",
    [
        "PYTHONSTARTUP",
        "PYTHONINSPECT",
        "PYTHONOPTIMIZE",
        "PYTHONWARNINGS",
        "LD_PRELOAD",
        "CUDA_LAUNCH_BLOCKING",
        "TRITON_INTERPRET",
        "PYTEST_ADDOPTS",
    ],
)
def test_drops_what_would_leak_from_kdiags_own_environment(name: str) -> None:
    assert name in DROPPED
    assert name not in child_env(BASE, {}, run_dir=RUN)


def test_forced_variables() -> None:
    env = child_env(BASE, {}, run_dir=RUN, seed=7)
    assert env["PYTHONFAULTHANDLER"] == "1"
    assert env["PYTHONUNBUFFERED"] == "1"
    assert env["TRITON_PRINT_AUTOTUNING"] == "1"
    assert env["PYTHONHASHSEED"] == "7"
    assert env["KDIAG_SEED"] == "7"
    assert env["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert env["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"


def test_caches_and_tmp_are_fresh_and_under_the_run_dir() -> None:
    env = child_env(BASE, {}, run_dir=RUN)
    for name in ("TRITON_CACHE_DIR", "TMPDIR", "CUPY_CACHE_DIR", "TORCH_EXTENSIONS_DIR", "TORCHINDUCTOR_CACHE_DIR"):
        assert Path(env[name]).is_relative_to(RUN), name
    assert env["TRITON_CACHE_DIR"] != BASE["TRITON_CACHE_DIR"]
    assert len({env[n] for n in child_dirs(RUN)}) == len(child_dirs(RUN))  # one directory each


def test_visible_devices_pinned() -> None:
    assert child_env(BASE, {}, run_dir=RUN)["CUDA_VISIBLE_DEVICES"] == "0"
    assert child_env({**BASE, "CUDA_VISIBLE_DEVICES": "3"}, {}, run_dir=RUN)["CUDA_VISIBLE_DEVICES"] == "3"
    pinned = child_env({**BASE, "CUDA_VISIBLE_DEVICES": "3"}, {}, run_dir=RUN, visible_devices="1")
    assert pinned["CUDA_VISIBLE_DEVICES"] == "1"


def test_overrides_win_and_none_deletes() -> None:
    env = child_env(
        BASE,
        {"CUDA_LAUNCH_BLOCKING": "1", "PYTHONUNBUFFERED": None, "HOME": None, "NEW": "x"},
        run_dir=RUN,
    )
    assert env["CUDA_LAUNCH_BLOCKING"] == "1"  # a ladder rung may set what the base may not leak
    assert "PYTHONUNBUFFERED" not in env and "HOME" not in env
    assert env["NEW"] == "x"
    assert child_env(BASE, {"ABSENT": None}, run_dir=RUN) == child_env(BASE, {}, run_dir=RUN)


def test_pure() -> None:
    base = dict(BASE)
    overrides: dict[str, str | None] = {"X": "1"}
    first = child_env(base, overrides, run_dir=RUN)
    assert base == BASE and overrides == {"X": "1"}  # inputs untouched
    assert child_env(base, overrides, run_dir=RUN) == first
    assert all(isinstance(v, str) for v in first.values())


def test_ensure_child_dirs(tmp_path: Path) -> None:
    ensure_child_dirs(tmp_path)
    assert all(p.is_dir() for p in child_dirs(tmp_path).values())
