"""One stride for two axes, read from a Triton kernel's source (never imported, never run).

A pointer offset sums one term per axis, each an index times that axis's stride
(``rows[:, None] * stride_r + cols[None, :] * stride_c``).  When two terms of one sum multiply
*different* indices by the *same* stride argument (``rows[:, None] * s2 + cols[None, :] * s2``), two
axes walk memory the same way: one of them uses the other's stride, a wrong index whatever the
sizes.  Model-written kernels do this after copying a line (``stride_xm`` for ``stride_xk``).

A finding is a candidate: rules read it together with a failure at a declared size
(``rules/run/run-stride-reused.yaml``).

>>> src = '''
... import triton
... import triton.language as tl
... @triton.jit
... def k(x_ptr, out_ptr, D1, D2, s0, s1, s2, BLOCK: tl.constexpr):
...     b = tl.program_id(0)
...     rows = tl.arange(0, BLOCK)
...     cols = tl.arange(0, BLOCK)
...     ptrs = x_ptr + b * s0 + rows[:, None] * s2 + cols[None, :] * s2
...     tl.store(out_ptr + cols, tl.sum(tl.load(ptrs), axis=0))
... '''
>>> [(r.stride, r.line) for r in triton_stride_reuse(src)]
[('s2', 9)]
>>> triton_stride_reuse(src.replace("rows[:, None] * s2", "rows[:, None] * s1"))
[]
>>> triton_stride_reuse(src.replace("cols[None, :] * s2", "rows[:, None] * s2"))  # the same index twice
[]
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from diagnose.run.triton_source import jit_functions, parse_source


@dataclass(frozen=True)
class StrideReuse:
    stride: str  # the argument used for two axes: "s2", "stride_xm"
    line: int  # the line of the offset expression, in the target file
    code: str  # that line, stripped
    indices: tuple[str, str]  # the two index expressions it multiplies: ("rows[:, None]", "cols[None, :]")


def _terms(node: ast.expr) -> list[ast.expr]:
    """The summands of an addition chain (``a + b * s + c`` -> [a, b * s, c])."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _terms(node.left) + _terms(node.right)
    return [node]


def _strided(term: ast.expr, params: set[str]) -> tuple[str, ast.expr] | None:
    """``index * stride`` (either order) with ``stride`` a runtime argument of the kernel: (stride, index)."""
    if not (isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult)):
        return None
    for s, idx in ((term.right, term.left), (term.left, term.right)):
        if isinstance(s, ast.Name) and s.id in params and not (isinstance(idx, ast.Name) and idx.id in params):
            return s.id, idx
    return None


def _subscripted(idx: ast.expr) -> bool:
    """An index laid along an axis (``rows[:, None]``): the sign of a multi-axis offset."""
    return any(isinstance(n, ast.Subscript) for n in ast.walk(idx))


def _runtime_params(fn: ast.FunctionDef) -> set[str]:
    out = set()
    for a in fn.args.args:
        ann = ast.unparse(a.annotation) if a.annotation is not None else ""
        if "constexpr" not in ann and not a.arg.endswith("_ptr"):
            out.add(a.arg)
    return out


def _fn_reuse(fn: ast.FunctionDef, lines: list[str]) -> list[StrideReuse]:
    params = _runtime_params(fn)
    out: list[StrideReuse] = []
    seen: set[tuple[str, int]] = set()
    for node in ast.walk(fn):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
            continue
        by_stride: dict[str, list[ast.expr]] = {}
        for t in _terms(node):
            got = _strided(t, params)
            if got is not None:
                by_stride.setdefault(got[0], []).append(got[1])
        for stride, idxs in by_stride.items():
            shown = {ast.dump(i): i for i in idxs}
            laid = [i for i in shown.values() if _subscripted(i)]
            key = (stride, node.lineno)
            if len(laid) >= 2 and key not in seen:
                seen.add(key)
                code = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                out.append(StrideReuse(stride, node.lineno, code, (ast.unparse(laid[0]), ast.unparse(laid[1]))))
    return out


def triton_stride_reuse(text: str) -> list[StrideReuse]:
    """Offsets in ``@triton.jit`` functions that give two axes one stride (nothing when the text does not parse)."""
    tree = parse_source(text)
    if tree is None:
        return []
    lines = text.splitlines()
    return [r for fn in jit_functions(tree) for r in _fn_reuse(fn, lines)]


def scan(path: Path) -> list[StrideReuse]:
    try:
        return triton_stride_reuse(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def static_facts(path: Path | None) -> dict[str, object]:
    """The first stride reuse in the target's source, as run facts (empty when there is none)."""
    found = scan(path) if path is not None and path.suffix == ".py" else []
    if not found:
        return {}
    r = found[0]
    return {
        "stride_reused": r.stride,
        "stride_reused_line": r.line,
        "stride_reused_code": r.code[:160],
        "stride_reused_indices": f"{r.indices[0]} and {r.indices[1]}",
    }
