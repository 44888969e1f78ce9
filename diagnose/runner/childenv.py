"""The environment of an attempt: a pure function of the caller's environment and the run.

Every child kdiag starts gets an explicit environment built here, so two attempts of the same
target differ only by what the escalation ladder chose to change (its ``overrides``), and nothing
from the shell kdiag was started from silently changes what the child does.

>>> env = child_env({"PATH": "/usr/bin", "PYTHONSTARTUP": "/home/me/.pythonrc"}, {}, run_dir=Path("/r"))
>>> env["PATH"], env["PYTHONFAULTHANDLER"], env["TRITON_CACHE_DIR"]
('/usr/bin', '1', '/r/cache/triton')
>>> "PYTHONSTARTUP" in env
False
>>> child_env({"PATH": "/bin"}, {"CUDA_LAUNCH_BLOCKING": "1", "PYTHONUNBUFFERED": None}, run_dir=Path("/r"))[
...     "CUDA_LAUNCH_BLOCKING"]
'1'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

# Variables removed from the base environment.  Each one, inherited from the shell (or the
# virtualenv, or the test runner) kdiag itself runs in, would change how the child behaves, and
# none is something a kernel needs to run.  A caller who does want one passes it in `overrides`.
DROPPED: frozenset[str] = frozenset(
    {
        # Python start-up hooks and interpreter modes: an interactive hook, a REPL after the
        # script, a foreign stdlib, stripped asserts (a kernel's own checks vanish), warnings
        # turned into errors, a debug allocator that hides or moves memory bugs, import-time
        # chatter and tracing written to the stderr we parse.
        "PYTHONSTARTUP",
        "PYTHONINSPECT",
        "PYTHONHOME",
        "PYTHONEXECUTABLE",
        "PYTHONOPTIMIZE",
        "PYTHONWARNINGS",
        "PYTHONDEVMODE",
        "PYTHONBREAKPOINT",
        "PYTHONMALLOC",
        "PYTHONMALLOCSTATS",
        "PYTHONTRACEMALLOC",
        "PYTHONPROFILEIMPORTTIME",
        "PYTHONVERBOSE",
        "PYTHONDEBUG",
        "PYTHONCASEOK",
        "PYTHONSAFEPATH",
        "__PYVENV_LAUNCHER__",
        # test and coverage harnesses kdiag may itself be running under: they inject plugins,
        # options and coverage hooks into any Python (or pytest) the child starts.
        "PYTEST_ADDOPTS",
        "PYTEST_PLUGINS",
        "PYTEST_CURRENT_TEST",
        "PYTEST_XDIST_WORKER",
        "COVERAGE_PROCESS_START",
        "COV_CORE_SOURCE",
        "COV_CORE_CONFIG",
        "COV_CORE_DATAFILE",
        # code injected into every process, and CUDA tool injection (nsys, ncu, a sanitizer
        # left over from another run): the child would run under a tool we did not choose.
        "LD_PRELOAD",
        "LD_AUDIT",
        "CUDA_INJECTION64_PATH",
        "CUDA_INJECTION32_PATH",
        # switches the escalation ladder sets on purpose, per rung; inherited, they would make
        # the "plain" rung something else and the record of what changed would be wrong.
        "CUDA_LAUNCH_BLOCKING",
        "PYTORCH_NO_CUDA_MEMORY_CACHING",
        "TRITON_INTERPRET",
        "TRITON_DEBUG",
        "TRITON_ALWAYS_COMPILE",
        "TRITON_KERNEL_OVERRIDE",
        "TRITON_OVERRIDE_DIR",
        "TRITON_KERNEL_DUMP",
        "TRITON_DUMP_DIR",
        "TORCH_COMPILE_DEBUG",
        "TORCHINDUCTOR_FORCE_DISABLE_CACHES",
        "CUPY_CUDA_COMPILE_WITH_DEBUG",
    }
)

# Everything else (PATH, HOME, USER, LANG/LC_*, LD_LIBRARY_PATH, CUDA_HOME, PYTHONPATH, proxy
# settings, ...) is kept: the child needs it to find its tools, libraries and the user's code.


def child_dirs(run_dir: Path) -> dict[str, Path]:
    """The per-run directories the forced variables point into (``ensure_child_dirs`` makes them)."""
    return {
        "TMPDIR": run_dir / "tmp",
        "TRITON_CACHE_DIR": run_dir / "cache" / "triton",
        "CUPY_CACHE_DIR": run_dir / "cache" / "cupy",
        "TORCH_EXTENSIONS_DIR": run_dir / "cache" / "torch_extensions",
        "TORCHINDUCTOR_CACHE_DIR": run_dir / "cache" / "inductor",
    }


def ensure_child_dirs(run_dir: Path) -> None:
    """Create the directories of :func:`child_dirs` (the only side effect, kept out of child_env)."""
    for path in child_dirs(run_dir).values():
        path.mkdir(parents=True, exist_ok=True)


def child_env(
    base: Mapping[str, str],
    overrides: Mapping[str, str | None],
    *,
    run_dir: Path,
    seed: int = 0,
    visible_devices: str | None = None,
) -> dict[str, str]:
    """The complete environment of one attempt.

    ``base`` is the environment to start from (usually ``os.environ``), ``overrides`` what this
    attempt changes on purpose (applied last, so a ladder rung wins over everything; ``None``
    deletes).  ``visible_devices`` pins ``CUDA_VISIBLE_DEVICES``; when it is ``None`` the base's
    value is kept and, if there is none, device 0 is pinned.
    """
    env = {k: v for k, v in base.items() if k not in DROPPED}

    # A segfault or abort inside a kernel otherwise leaves no Python stack at all; with the
    # fault handler the stderr file names the Python line that launched it.
    env["PYTHONFAULTHANDLER"] = "1"
    # A crash loses whatever sits in a block-buffered stdout; unbuffered, the file holds every
    # line written before the fault, in order with stderr.
    env["PYTHONUNBUFFERED"] = "1"
    # Triton's autotuner silently drops configs that fail to compile or run (OutOfResources,
    # PTXASError) unless asked to print them; those failures are evidence.
    env["TRITON_PRINT_AUTOTUNING"] = "1"

    # Fresh caches and scratch space per run: a kernel cached by an earlier (or another
    # user's) build would skip the compile whose errors we want, and two runs must not
    # see each other's temporary files.
    for name, path in child_dirs(run_dir).items():
        env[name] = str(path)

    # Pin the device set, and number devices the way nvidia-smi and NVML do, so "device 0" in
    # the child's errors is the device our environment snapshot describes.
    if visible_devices is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible_devices
    else:
        env.setdefault("CUDA_VISIBLE_DEVICES", "0")
    env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"

    # Fixed seeds: set iteration order (PYTHONHASHSEED) and the seed our kernel protocol passes
    # to make_inputs (KDIAG_SEED), so a re-run on the next rung sees the same inputs.
    env["PYTHONHASHSEED"] = str(seed)
    env["KDIAG_SEED"] = str(seed)
    # cuBLAS picks reduction strategies per workspace; a fixed workspace config is what
    # torch.use_deterministic_algorithms needs for bitwise-repeatable matmuls (NVIDIA cuBLAS
    # docs, "Results reproducibility"), so "identical runs disagree" means a race, not cuBLAS.
    env["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"

    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env
