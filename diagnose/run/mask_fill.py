"""A masked load whose fill value is not the neutral element of the max or min it feeds, read from the source.

``tl.load(ptr, mask=m, other=0.0)`` fills the masked-off lanes of a block (the tail past ``n``, the padding of a
row rounded up to a power of two) with 0.0.  That is right for a sum and wrong for a max or a min: the padding
lanes enter the reduction, so a row whose values are all below zero gets 0.0 as its maximum.  The neutral fill is
``-float("inf")`` for a max and ``float("inf")`` for a min.  Triton leaves the masked lanes undefined without
``other`` (the interpreter and the compiled code give 0), which is the same defect.  Only values loaded into a
name and passed straight to ``tl.max`` / ``tl.min`` / ``tl.argmax`` / ``tl.argmin`` / ``tl.maximum`` /
``tl.minimum`` are followed; a finding is a candidate that a failing run confirms
(``rules/run/run-mask-fill-enters-max.yaml``).

>>> src = '''
... @triton.jit
... def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
...     offs = tl.arange(0, BLOCK)
...     x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
...     tl.store(out_ptr, tl.max(x, axis=0))
... '''
>>> first(src)
'tl.max at line 6 reads `x`, loaded at line 5 with other=0.0: the masked-off lanes enter the max (its neutral fill is -inf)'
>>> first(src.replace("other=0.0", "other=-float('inf')")) is None
True
>>> first(src.replace("tl.max(x, axis=0)", "tl.sum(x, axis=0)")) is None
True
"""

from __future__ import annotations

import ast
from pathlib import Path

from diagnose.run.atomic_updates import source_fact
from diagnose.run.triton_source import jit_functions_in, tl_call

#: the reductions whose neutral fill is -inf (a max) or +inf (a min)
_MAXLIKE = {"max": "max", "argmax": "max", "maximum": "max", "min": "min", "argmin": "min", "minimum": "min"}
_NEUTRAL = {"max": "-inf", "min": "inf"}


def _fill(call: ast.Call) -> str | None:
    """The fill of a masked ``tl.load`` when it is not neutral for a max or min (0, or none given), else None."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if "mask" not in kw and len(call.args) < 2:
        return None  # not masked: no lanes filled
    other = kw.get("other", call.args[2] if len(call.args) > 2 else None)
    if other is None:
        return "no other (masked lanes undefined, 0 in practice)"
    if isinstance(other, ast.Constant) and isinstance(other.value, int | float) and other.value == 0:
        return f"other={other.value!r}"
    return None


def first(text: str) -> str | None:
    """The first max or min fed by a masked load filled with 0, described; ``None`` when there is none."""
    if "tl.load" not in text or not any(f"tl.{r}" in text for r in _MAXLIKE):
        return None
    for fn in jit_functions_in(text):
        loads: dict[str, tuple[int, str]] = {}
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and tl_call(node.value) == "load"
            ):
                fill = _fill(node.value)
                if fill is not None:
                    loads[node.targets[0].id] = (node.lineno, fill)
        if not loads:
            continue
        for node in ast.walk(fn):
            op = tl_call(node)
            if op not in _MAXLIKE:
                continue
            assert isinstance(node, ast.Call)
            names = [a.id for a in node.args if isinstance(a, ast.Name) and a.id in loads]
            if names:
                line, fill = loads[names[0]]
                kind = _MAXLIKE[op]
                return (
                    f"tl.{op} at line {node.lineno} reads `{names[0]}`, loaded at line {line} with {fill}: the "
                    f"masked-off lanes enter the {kind} (its neutral fill is {_NEUTRAL[kind]})"
                )
    return None


def static_facts(path: Path | None) -> dict[str, object]:
    """The first such max or min in the target's Triton source, as run facts (empty when there is none)."""
    return source_fact(path, (".py",), "mask_fill_reduction", first)
