"""Problem sizes, parent side: ``--size NAME=VALUE`` read and checked, and what the report says when a
run did not use the declared size (the children apply it: ``harness/sizes.py``).

>>> parse(["batch_size=16", "dim=1e3", "scale=0.5"])
{'batch_size': 16, 'dim': 1000, 'scale': 0.5}
>>> parse(["dim"])
Traceback (most recent call last):
...
ValueError: --size wants NAME=VALUE (e.g. --size batch_size=16), not 'dim'
>>> notes({"resized": {"declared": {"batch_size": 4096}, "ran": {"batch_size": 16},
...                    "declared_bytes": 12 * 2**30, "bytes": 48 * 2**20, "max_bytes": 256 * 2**20}})
['ran at batch_size=16 instead of 4096: the declared size needs 12 GiB of inputs, more than the 256 MiB kdiag gives a run without a GPU (--size NAME=VALUE chooses)']
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: without a GPU, a KernelBench problem's inputs are fitted to this (harness/sizes.py)
MAX_INPUT_BYTES_CPU = 64 * 2**20


def parse(items: list[str] | None) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for item in items or []:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise ValueError(f"--size wants NAME=VALUE (e.g. --size batch_size=16), not {item!r}")
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"--size {name}: {raw!r} is not a number") from None
        out[name.strip()] = int(value) if value.is_integer() and "." not in raw.strip("0123456789e+") else value
    return out


_OPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Div: lambda a, b: a / b, ast.LShift: lambda a, b: a << b,
    ast.Pow: lambda a, b: a**b if abs(b) <= 64 else None,
}  # fmt: skip


def _number(node: ast.expr, known: Mapping[str, Any]) -> Any:
    """A number from a literal, a name bound above, or + - * / // << ** of those (None: not one)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _number(node.operand, known)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _number(node.left, known), _number(node.right, known)
        if a is None or b is None:
            return None
        try:
            return _OPS[type(node.op)](a, b)
        except (ArithmeticError, ValueError, TypeError):
            return None
    return None


def constants(path: Path) -> dict[str, Any]:
    """Module-level number constants of a reference (``batch_size = 4096``, ``dim = 16384 * 2``), from its AST."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return {}
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _number(node.value, out)
            if value is not None:
                out[node.targets[0].id] = value
    return out


def check(kind: str, reference: Path | None, overrides: Mapping[str, Any]) -> str | None:
    """Why the overrides cannot apply to this target (None: they can)."""
    if not overrides:
        return None
    if kind == "kernelbench" and reference is not None:
        known = constants(reference)
        unknown = [n for n in overrides if n not in known]
        if unknown:
            have = ", ".join(f"{k}={v}" for k, v in known.items()) or "none"
            return f"--size {', '.join(unknown)}: not a module-level size constant of {reference} (it has: {have})"
    if kind in ("command", "cuda-file"):
        return "--size applies to KernelBench problems and to make_inputs / generate_input keywords"
    return None


def _bytes(n: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} bytes"


def notes(manifest: Mapping[str, Any]) -> list[str]:
    """What the report says about the sizes the run used."""
    out = []
    given = manifest.get("size_overrides") or {}
    if isinstance(given, Mapping) and given:
        out.append("ran with --size " + ", ".join(f"{k}={v}" for k, v in given.items()))
    r = manifest.get("resized")
    if isinstance(r, Mapping) and isinstance(r.get("ran"), Mapping) and isinstance(r.get("declared"), Mapping):
        ran = ", ".join(f"{k}={v}" for k, v in r["ran"].items())
        was = ", ".join(str(v) for v in r["declared"].values())
        try:
            need, cap = _bytes(float(r["declared_bytes"])), _bytes(float(r["max_bytes"]))
        except (KeyError, TypeError, ValueError):
            need, cap = "?", "?"
        out.append(
            f"ran at {ran} instead of {was}: the declared size needs {need} of inputs, more than the {cap} "
            "kdiag gives a run without a GPU (--size NAME=VALUE chooses)"
        )
    return out


def sample_budget(resized: Any, default: int, cap: int) -> int | None:
    """The input budget of a run that keeps every sample's declared shape (only the batch shrunk), when the run
    just made (``resized``, its inputs manifest's record) changed more than its batch constants: the default
    budget, or what one sample needs when that is more (up to ``cap``).  None: nothing but the batch changed,
    the problem has no batch constant, or one sample needs more than ``cap``."""
    if not isinstance(resized, Mapping) or not isinstance(resized.get("ran"), Mapping):
        return None
    batch, sample = resized.get("batch") or [], resized.get("sample_bytes")
    if not batch or not isinstance(sample, int) or sample > cap or not set(resized["ran"]) - set(batch):
        return None
    return max(default, sample)


def per_sample_changes(resized: Any) -> list[str]:
    """The constants a fitted run changed besides its batch (``features``, ``dim1``): each sample's shape."""
    if not isinstance(resized, Mapping) or not isinstance(resized.get("ran"), Mapping):
        return []
    return [n for n in resized["ran"] if n not in set(resized.get("batch") or [])]
