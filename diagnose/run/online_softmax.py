"""An online softmax whose accumulator misses the rescale its denominator gets, read from the source.

Flash-attention style kernels walk the keys in blocks, keeping a running maximum ``m``, a denominator ``l`` and an
output accumulator ``acc``.  When a block raises the maximum, everything summed so far was weighted with the old
one, so both running sums are multiplied by ``alpha = exp(m_old - m_new)`` before the block's terms are added:
``l = l * alpha + tl.sum(p, 1)`` and ``acc = acc * alpha[:, None] + tl.dot(p, v)``.  Rescaling ``l`` and not
``acc`` leaves the earlier blocks' contributions too heavy: every row whose maximum moves after the first block
comes out wrong, the rows whose maximum is in the first block right.  Found: a loop in a ``@triton.jit`` function
that computes such an ``alpha`` (``tl.exp`` / ``tl.exp2`` of an expression holding the old and the new maximum,
the new one a ``tl.maximum`` of the old), adds a ``tl.dot`` into an accumulator, and never multiplies that
accumulator by ``alpha``.  A candidate that a failing run confirms (``rules/run/run-online-softmax-not-rescaled.yaml``).

>>> src = '''
... @triton.jit
... def attn(q, k_ptr, v_ptr, N, BLOCK: tl.constexpr):
...     m_i = tl.full((16,), -float("inf"), tl.float32)
...     l_i = tl.zeros((16,), tl.float32)
...     acc = tl.zeros((16, 32), tl.float32)
...     for start in range(0, N, BLOCK):
...         s = tl.dot(q, tl.load(k_ptr))
...         m_new = tl.maximum(m_i, tl.max(s, axis=1))
...         alpha = tl.exp(m_i - m_new)
...         p = tl.exp(s - m_new[:, None])
...         l_i = l_i * alpha + tl.sum(p, axis=1)
...         acc += tl.dot(p, tl.load(v_ptr))
...         m_i = m_new
... '''
>>> first(src)
'`acc` adds tl.dot at line 13 without the rescale by `alpha` = exp of (m_i, m_new) at line 10 that `l_i` gets'
>>> first(src.replace("acc += tl.dot(p, tl.load(v_ptr))", "acc = acc * alpha[:, None] + tl.dot(p, tl.load(v_ptr))"))
>>> first(src.replace("        acc += tl.dot", "        acc *= alpha[:, None]\\n        acc += tl.dot"))
"""

from __future__ import annotations

import ast
from pathlib import Path

from diagnose.run.atomic_updates import source_fact
from diagnose.run.triton_source import jit_functions_in, tl_call

_EXP = {"exp", "exp2"}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _calls(node: ast.AST) -> set[str]:
    found = set()
    for n in ast.walk(node):
        op = tl_call(n)
        if op is None and isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            # tl.math.exp2(...): the attribute called on tl.math
            base = n.func.value
            if isinstance(base, ast.Attribute) and base.attr == "math":
                op = n.func.attr
        if op:
            found.add(op)
    return found


def _assigned(stmt: ast.stmt) -> tuple[str, ast.expr, bool] | None:
    """(name, value, augmented) for ``name = value`` / ``name op= value``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value, False
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value, True
    return None


def _loop_finding(loop: ast.For | ast.While) -> str | None:
    body = [s for s in ast.walk(loop) if isinstance(s, ast.Assign | ast.AugAssign)]
    assigned = [(s, a) for s in body if (a := _assigned(s)) is not None]
    maxima = {}  # new maximum -> the old one it is a tl.maximum of
    for _, (name, value, aug) in assigned:
        if not aug and isinstance(value, ast.Call) and tl_call(value) == "maximum":
            olds = [a.id for a in value.args if isinstance(a, ast.Name)]
            if olds:
                maxima[name] = olds[0]
    if not maxima:
        return None
    alphas = {}  # alpha -> (line, old, new)
    for stmt, (name, value, aug) in assigned:
        if aug or not (_calls(value) & _EXP):
            continue
        used = _names(value)
        for new, old in maxima.items():
            if {new, old} <= used and name not in (new, old):
                alphas[name] = (stmt.lineno, old, new)
    if not alphas:
        return None
    for alpha, (aline, old, new) in alphas.items():
        scaled = {name for _, (name, value, _aug) in assigned if alpha in _names(value) and name in _names(value)}
        scaled |= {name for _, (name, value, aug) in assigned if aug and alpha in _names(value)}
        for stmt, (name, value, aug) in assigned:
            if "dot" not in _calls(value) or name in scaled:
                continue
            if aug or name in _names(value):
                others = sorted(scaled - {name})
                gets = f" that `{others[0]}` gets" if others else ""
                return (
                    f"`{name}` adds tl.dot at line {stmt.lineno} without the rescale by `{alpha}` = exp of ({old}, "
                    f"{new}) at line {aline}{gets}"
                )
    return None


def first(text: str) -> str | None:
    """The first accumulator of an online softmax left without its rescale, described; None when there is none."""
    if "tl.maximum" not in text or "tl.dot" not in text or "exp" not in text:
        return None
    for fn in jit_functions_in(text):
        for loop in (n for n in ast.walk(fn) if isinstance(n, ast.For | ast.While)):
            found = _loop_finding(loop)
            if found:
                return found
    return None


def static_facts(path: Path | None) -> dict[str, object]:
    """The first such accumulator in the target's Triton source, as run facts (empty when there is none)."""
    return source_fact(path, (".py",), "online_softmax_unscaled", first)
