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
    """Halve ``module``'s sizes until its inputs fit; the declared value of every slot changed.

    A halving that leaves the inputs' bytes, the reference's output shape and its parameters' sizes as they
    were is undone, and that constant is left alone: it sizes nothing (``num_groups``), and changing it would
    change the problem (``out_features`` sizes the weights: it is halved as before)."""
    before = _slots(module, fixed, tuples=tied)
    not_sizes: set[Slot] = set()
    outputs = _model_sizes(module)
    now = declared_bytes
    for _ in range(200):
        current = {s: v for s, v in _slots(module, fixed, tuples=tied).items() if s in before and s not in not_sizes}
        if not current or now <= max_bytes:
            break
        names = _halvable(current, before)
        largest = max(current[s] for s in names)
        halved = [s for s in names if current[s] == largest] if tied else [max(names, key=current.__getitem__)]
        for slot in halved:
            _set(module, slot, max(1, largest // 2))
        got = input_bytes(module)
        if got is None:
            break
        if got == now:
            shapes = _model_sizes(module)
            if shapes is not None and shapes == outputs:
                for slot in halved:
                    _set(module, slot, current[slot])
                not_sizes.update(halved)
                continue
            outputs = shapes
        now = got
    return {s: v for s, v in before.items() if _get(module, s) != v}


def _input_shapes(module: ModuleType) -> list[tuple[int, ...]] | None:
    """The shapes of ``get_inputs()``'s tensors (nested lists flattened), on the meta device (None: unknown)."""
    import torch

    def flat(value: Any) -> list[tuple[int, ...]]:
        if isinstance(value, torch.Tensor):
            return [tuple(value.shape)]
        if isinstance(value, list | tuple):
            return [s for v in value for s in flat(v)]
        if isinstance(value, dict):
            return [s for v in value.values() for s in flat(v)]
        return []

    try:
        with torch.device("meta"):
            return flat(module.get_inputs())
    except Exception:
        return None


def _output_shapes(module: ModuleType) -> list[tuple[int, ...]] | None:
    """The shapes of the reference's outputs on its inputs, on the meta device (None: it cannot say)."""
    import torch

    model = getattr(module, "Model", None)
    if model is None:
        return None

    def flat(value: Any) -> list[tuple[int, ...]]:
        if isinstance(value, torch.Tensor):
            return [tuple(value.shape)]
        if isinstance(value, list | tuple):
            return [s for v in value for s in flat(v)]
        return []

    try:
        with torch.device("meta"):
            init = module.get_init_inputs() if hasattr(module, "get_init_inputs") else []
            return flat(model(*init)(*module.get_inputs()))
    except Exception:
        return None


def _model_sizes(module: ModuleType) -> tuple[Any, ...] | None:
    """The reference's output shapes and its parameters' element count, on the meta device (None: unknown)."""
    import torch

    model = getattr(module, "Model", None)
    shapes = _output_shapes(module)
    if model is None or shapes is None:
        return None
    try:
        with torch.device("meta"):
            init = module.get_init_inputs() if hasattr(module, "get_init_inputs") else []
            built = model(*init)
            params = sum(p.numel() for p in built.parameters()) if isinstance(built, torch.nn.Module) else 0
    except Exception:
        return None
    return (tuple(shapes), params)


def _leading_only(before: list[tuple[int, ...]], after: list[tuple[int, ...]]) -> bool:
    """Some shapes changed, each in its leading dimension alone."""
    if len(before) != len(after):
        return False
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    return bool(changed) and all(len(a) == len(b) and len(a) > 0 and a[1:] == b[1:] for a, b in changed)


def _init_inputs(module: ModuleType) -> str | None:
    try:
        return repr(module.get_init_inputs()) if hasattr(module, "get_init_inputs") else "[]"
    except Exception:
        return None


def batch_slots(module: ModuleType, fixed: set[str]) -> list[str]:
    """The batch constants: those that set only the leading dimension of the inputs and of the reference's
    output, and nothing the model is built from (``get_init_inputs``); a reduction length that leads its inputs
    (``K`` of ``A.T @ B``) leaves the output as it was, and is not one.  Shrinking the batch keeps every
    sample's shape, which is what a kernel's tiling and block sizes were chosen for."""
    declared, init, out_declared = _input_shapes(module), _init_inputs(module), _output_shapes(module)
    if not declared or init is None or not out_declared:
        return []
    out = []
    for (name, i), value in _slots(module, fixed, tuples=False).items():
        _set(module, (name, i), 1)
        try:
            shapes, init_now, outs = _input_shapes(module), _init_inputs(module), _output_shapes(module)
        finally:
            _set(module, (name, i), value)
        if shapes is None or outs is None or init_now != init:
            continue
        if _leading_only(declared, shapes) and _leading_only(out_declared, outs):
            out.append(name)
    return out


def _sample_bytes(module: ModuleType, batch: list[str]) -> int | None:
    """What the inputs need with every batch constant at 1 and every other size as declared."""
    if not batch:
        return None
    was = {n: getattr(module, n) for n in batch}
    for n in batch:
        setattr(module, n, 1)
    try:
        return input_bytes(module)
    finally:
        for n, v in was.items():
            setattr(module, n, v)


def fit_batch(module: ModuleType, fixed: set[str], max_bytes: int) -> dict[str, Any] | None:
    """Fit ``module``'s inputs by halving its batch constants alone (every sample's shape as declared), or, when
    that cannot reach ``max_bytes``, as :func:`fit` does; what was done (``batch_only`` says which), or None."""
    declared = input_bytes(module)
    if declared is None or declared <= max_bytes:
        return None
    batch = batch_slots(module, fixed)
    sample = _sample_bytes(module, batch)
    if sample is None or sample > max_bytes:
        done = fit(module, fixed, max_bytes)
        return None if done is None else {**done, "batch_only": False}
    was = {n: getattr(module, n) for n in batch}
    now = declared
    while now > max_bytes:
        name = max(batch, key=lambda n: getattr(module, n))
        setattr(module, name, max(1, getattr(module, name) // 2))
        got = input_bytes(module)
        if got is None:
            break
        now = got
    ran = {n: getattr(module, n) for n in batch if getattr(module, n) != was[n]}
    return {
        "declared": {n: was[n] for n in ran},
        "ran": ran,
        "declared_bytes": declared,
        "bytes": input_bytes(module),
        "max_bytes": max_bytes,
        "batch": batch,
        "batch_only": True,
    }


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
    batch = batch_slots(module, fixed)  # at the declared sizes, for a run that keeps every sample's shape
    sample = _sample_bytes(module, batch)
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
        "batch": batch,
        "sample_bytes": sample,
    }
