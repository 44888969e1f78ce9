"""``no-result``: the target could not run here.  Why, in the machine's own words (the environment snapshot).

A target that needs a GPU, a CUDA build of torch or a library this machine lacks is not a failed
kernel: its verdict is ``no-result`` (exit 4), the environment is information, and what *was*
checked (a compile, the static checks) is listed beside it.

>>> snap = {"software": {"torch": {"version": {"value": "2.13.0+cpu"}, "cuda": {"value": None}},
...                      "libraries": {"libcuda": {"value": None, "error": "no libcuda.so.1"}}},
...         "nvml": {"devices": [], "init": {"ok": False, "error": "NVMLError_LibraryNotFound"}}}
>>> causes(snap, gpu=False)
('no GPU (no NVIDIA driver: libcuda.so.1 not found)', 'torch 2.13.0+cpu is a CPU build (no CUDA)')
>>> mode(snap, gpu=False)
'no-gpu-visible'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from diagnose.run.result import RunResult

#: failure modes that say "this machine cannot run it", not "the kernel is wrong"
CANNOT_RUN_MODES = frozenset(
    {"no-gpu-visible", "toolchain-missing", "library-missing", "driver-too-old", "no-kernel-image-for-arch",
     "nvml-driver-mismatch", "version-skew", "mig-config", "exclusive-compute-mode", "permission-denied"}
)  # fmt: skip


def _value(d: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(d, Mapping):
            return None
        d = d.get(key)
    return d


def torch_cpu_build(snapshot: Mapping[str, Any] | None) -> str | None:
    """The torch version when the installed torch is a CPU build (``torch/version.py``: ``cuda = None``)."""
    t = _value(snapshot, "software", "torch")
    if not isinstance(t, Mapping) or "error" in (t.get("cuda") or {"error": 1}):
        return None
    if t["cuda"].get("value") is None and _value(t, "hip", "value") is None:
        return str(_value(t, "version", "value") or "?")
    return None


def causes(snapshot: Mapping[str, Any] | None, *, gpu: bool) -> tuple[str, ...]:
    """What this machine lacks, most basic first."""
    out = []
    if not gpu:
        libcuda = _value(snapshot, "software", "libraries", "libcuda")
        no_driver = isinstance(libcuda, Mapping) and libcuda.get("value") is None
        out.append("no GPU (no NVIDIA driver: libcuda.so.1 not found)" if no_driver else "no GPU")
    cpu = torch_cpu_build(snapshot)
    if cpu is not None:
        out.append(f"torch {cpu} is a CPU build (no CUDA)")
    return tuple(out)


def mode(snapshot: Mapping[str, Any] | None, *, gpu: bool) -> str:
    if not gpu:
        return "no-gpu-visible"
    return "library-missing" if torch_cpu_build(snapshot) else "toolchain-missing"


def cannot_run(category: str | None, failure_mode: str | None) -> bool:
    """A diagnosis that says the machine, not the kernel, stopped the run."""
    return category == "environment" and (failure_mode in CANNOT_RUN_MODES or failure_mode is None)


def explain(snapshot: Mapping[str, Any] | None, *, gpu: bool) -> str:
    found = causes(snapshot, gpu=gpu)
    return "cannot run here: " + ("; ".join(found) if found else "the environment lacks what it needs")


def cuda_home_note(snapshot: Mapping[str, Any] | None, torch_version: str) -> str:
    """What to say when torch blamed CUDA_HOME but the cause is a CPU build of torch."""
    nvcc = _value(snapshot, "software", "nvcc", "value", "path")
    where = f"nvcc is installed ({nvcc})" if nvcc else "no toolkit would help"
    return (
        f"torch's message asks for CUDA_HOME, but the cause is the CPU build of torch ({torch_version}): it "
        f"builds no CUDA extensions, and {where}; a CUDA build of torch and a GPU would run it"
    )


def as_no_result(
    res: RunResult, snapshot: Mapping[str, Any] | None, *, gpu: bool, checked: tuple[str, ...] = ()
) -> RunResult:
    """A failure the environment explains (no GPU, a CPU build of torch, a library missing) is no-result."""
    d = res.diagnosis
    if res.verdict != "fail" or d is None or d.best is None or not cannot_run(d.category, d.failure_mode):
        return res
    failure_mode, notes = d.failure_mode, res.notes
    cpu = torch_cpu_build(snapshot)
    if cpu is not None and d.failure_mode == "toolchain-missing" and res.target.kind != "cuda-file":
        # torch asks for CUDA_HOME whatever is missing; with a CPU build no toolkit would help
        failure_mode = "library-missing"
        notes = (*notes, cuda_home_note(snapshot, cpu))
    return dataclasses.replace(
        res, verdict="no-result", checked=checked, cannot_run=explain(snapshot, gpu=gpu),
        cannot_run_mode=failure_mode, notes=notes,
    )  # fmt: skip
