"""Problem sizes: ``kdiag run --size NAME=VALUE``, and a size this machine can hold.

- KernelBench: a problem's sizes are module-level constants of the reference (``batch_size``,
  ``dim``, ``M``, ``N``) that ``get_inputs`` / ``get_init_inputs`` read when called; an override
  rebinds them in the reference module (and in the submission's, where it defines the same name)
  before anything is called;
- the native protocol and GPU MODE: an override is a keyword of ``make_inputs`` /
  ``generate_input``, set in every declared size.

Without a GPU the inputs child also fits a KernelBench problem to ``max_input_bytes``: its inputs
are first made on torch's ``meta`` device (shapes and dtypes, no memory), and while they would
need more, the largest integer size constant not given with ``--size`` is halved.  A halving that
keeps the constant a multiple of what the declared value was a multiple of (its power-of-two factor,
up to 1024) comes first, then halving a power of two, then any: a problem declared at
``dim = 393216`` (3 * 2**17) runs at a multiple of 1024, as the kernels written for it expect, not at
192.  When the sizes so fitted make the reference's own forward fail on the meta device (constants
that must stay equal, ``batch_size`` and ``input_shape = (32768,)`` broadcast against each other), it
is fitted again with tuple constants counted and equal values halved together.  What was changed,
and what the declared size needed, goes into the inputs manifest (``resized``) for the report.
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


#: a size constant, or one element of a tuple of them (``input_shape = (32768,)``: ("input_shape", 0))
Slot = tuple[str, int | None]


def _slots(module: ModuleType, fixed: set[str], tuples: bool) -> dict[Slot, int]:
    out: dict[Slot, int] = {}
    for name, value in vars(module).items():
        if name.startswith("_") or name in fixed or name in _NOT_SIZES:
            continue
        if type(value) is int and value > 1:
            out[(name, None)] = value
        elif tuples and type(value) is tuple and value and all(type(v) is int for v in value):
            out.update(((name, i), v) for i, v in enumerate(value) if v > 1)
    return out


def _set(module: ModuleType, slot: Slot, value: int) -> None:
    name, i = slot
    if i is None:
        setattr(module, name, value)
    else:
        old = list(getattr(module, name))
        old[i] = value
        setattr(module, name, tuple(old))


def _get(module: ModuleType, slot: Slot) -> Any:
    name, i = slot
    value = getattr(module, name)
    return value if i is None else value[i]


def _keep(declared: int) -> int:
    """What a halved size must stay a multiple of: the declared value's power-of-two factor, up to 1024."""
    return min(declared & -declared, 1024)


def _halvable(now: dict[Slot, int], declared: dict[Slot, int]) -> list[Slot]:
    """The slots to halve next: those a halving keeps a multiple of their declared factor, else the powers
    of two, else all of them."""
    keeps = [s for s, v in now.items() if v % 2 == 0 and (v // 2) % _keep(declared[s]) == 0]
    if keeps:
        return keeps
    pow2 = [s for s, v in now.items() if v & (v - 1) == 0]
    return pow2 or list(now)


def reference_runs(module: ModuleType) -> bool | None:
    """Whether the reference's own forward runs on its inputs, on the meta device (None: cannot tell)."""
    import torch

    model = getattr(module, "Model", None)
    if model is None:
        return None
    try:
        with torch.device("meta"):
            init = module.get_init_inputs() if hasattr(module, "get_init_inputs") else []
            model(*init)(*module.get_inputs())
    except Exception:
        return False
    return True


def _fit(module: ModuleType, fixed: set[str], max_bytes: int, declared_bytes: int, tied: bool) -> dict[Slot, int]:
    """Halve ``module``'s sizes until its inputs fit; the declared value of every slot changed."""
    before = _slots(module, fixed, tuples=tied)
    now = declared_bytes
    for _ in range(200):
        current = {s: v for s, v in _slots(module, fixed, tuples=tied).items() if s in before}
        if not current or now <= max_bytes:
            break
        names = _halvable(current, before)
        largest = max(current[s] for s in names)
        for slot in [s for s in names if current[s] == largest] if tied else [max(names, key=current.__getitem__)]:
            _set(module, slot, max(1, largest // 2))
        got = input_bytes(module)
        if got is None:
            break
        now = got
    return {s: v for s, v in before.items() if _get(module, s) != v}


def _restore(module: ModuleType, declared: dict[Slot, int]) -> None:
    for slot, value in declared.items():
        _set(module, slot, value)


def _value(module: ModuleType, name: str) -> Any:
    value = getattr(module, name)
    return list(value) if isinstance(value, tuple) else value


def fit(module: ModuleType, fixed: set[str], max_bytes: int) -> dict[str, Any] | None:
    """Shrink ``module``'s size constants until its inputs fit in ``max_bytes``; what was done, or None."""
    declared = input_bytes(module)
    if declared is None or declared <= max_bytes:
        return None
    runs_declared = reference_runs(module)
    changed = _fit(module, fixed, max_bytes, declared, tied=False)
    if changed and runs_declared and reference_runs(module) is False:
        _restore(module, changed)  # the fitted sizes broke the reference: sizes that must stay equal
        retry = _fit(module, fixed, max_bytes, declared, tied=True)
        if reference_runs(module):
            changed = retry
        else:
            _restore(module, retry)
            changed = _fit(module, fixed, max_bytes, declared, tied=False)
    if not changed:
        return None
    names = list(dict.fromkeys(name for name, _ in changed))
    snapshot = {n: _value(module, n) for n in names}
    _restore(module, changed)
    was = {n: _value(module, n) for n in names}
    for (name, i), _ in changed.items():
        setattr(module, name, tuple(snapshot[name]) if i is not None else snapshot[name])
    return {
        "declared": was,
        "ran": snapshot,
        "declared_bytes": declared,
        "bytes": input_bytes(module),
        "max_bytes": max_bytes,
    }
