"""Problem sizes: ``kdiag run --size NAME=VALUE``, and a size this machine can hold.

- KernelBench: a problem's sizes are module-level constants of the reference (``batch_size``,
  ``dim``, ``M``, ``N``) that ``get_inputs`` / ``get_init_inputs`` read when called; an override
  rebinds them in the reference module (and in the submission's, where it defines the same name)
  before anything is called;
- the native protocol and GPU MODE: an override is a keyword of ``make_inputs`` /
  ``generate_input``, set in every declared size.

Without a GPU the inputs child also fits a KernelBench problem to ``max_input_bytes``: its inputs
are first made on torch's ``meta`` device (shapes and dtypes, no memory), and while they would
need more, the largest integer size constant not given with ``--size`` is halved.  What was
changed, and what the declared size needed, goes into the inputs manifest (``resized``) for the
report.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

#: constants kdiag never shrinks (they are not sizes)
_NOT_SIZES = frozenset({"seed", "SEED", "num_classes", "kernel_size", "stride", "padding", "dilation", "groups"})


def apply(module: ModuleType | None, overrides: dict[str, Any]) -> None:
    """Rebind module-level constants that ``module`` defines."""
    if module is None:
        return
    for name, value in overrides.items():
        if hasattr(module, name):
            setattr(module, name, value)


def chosen(overrides: dict[str, Any] | None, manifest: dict[str, Any]) -> dict[str, Any]:
    """The sizes the inputs were made at: the overrides, and what the inputs child fitted (``resized``)."""
    resized = manifest.get("resized") or {}
    return {**(overrides or {}), **(resized.get("ran") or {})}


def override_sizes(sizes: list[dict[str, Any]], overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """Every declared size with the overrides set (duplicates dropped)."""
    out: list[dict[str, Any]] = []
    for s in sizes or [{}]:
        merged = {**s, **overrides}
        if merged not in out:
            out.append(merged)
    return out


def _tensor_bytes(value: Any) -> int:
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, list | tuple):
        return sum(_tensor_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_tensor_bytes(v) for v in value.values())
    return 0


def input_bytes(module: ModuleType) -> int | None:
    """What ``get_inputs()`` would allocate, found on the meta device (None: it cannot say)."""
    import torch

    try:
        with torch.device("meta"):
            return _tensor_bytes(module.get_inputs())
    except Exception:  # .cuda(), a generator on a device, data read from a file: no estimate
        return None


def _candidates(module: ModuleType, fixed: set[str]) -> list[str]:
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and name not in fixed
        and name not in _NOT_SIZES
        and type(value) is int
        and value > 1
    ]


def fit(module: ModuleType, fixed: set[str], max_bytes: int) -> dict[str, Any] | None:
    """Shrink ``module``'s size constants until its inputs fit in ``max_bytes``; what was done, or None."""
    declared = input_bytes(module)
    if declared is None or declared <= max_bytes:
        return None
    before = {n: getattr(module, n) for n in _candidates(module, fixed)}
    now = declared
    for _ in range(200):
        names = [n for n in _candidates(module, fixed) if n in before]
        if not names or now <= max_bytes:
            break
        largest = max(names, key=lambda n: getattr(module, n))
        setattr(module, largest, max(1, getattr(module, largest) // 2))
        got = input_bytes(module)
        if got is None:
            break
        now = got
    changed = {n: getattr(module, n) for n, v in before.items() if getattr(module, n) != v}
    if not changed:
        return None
    return {
        "declared": {n: before[n] for n in changed},
        "ran": changed,
        "declared_bytes": declared,
        "bytes": now,
        "max_bytes": max_bytes,
    }
