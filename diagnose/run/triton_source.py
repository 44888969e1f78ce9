"""The ``@triton.jit`` functions of a Python source, for the static checks that read a kernel's code.

>>> src = "import triton\\n@triton.jit\\ndef k(x):\\n    pass\\ndef host():\\n    pass\\n"
>>> [fn.name for fn in jit_functions(ast.parse(src))]
['k']
>>> parse_source("def (")
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


def is_jit(fn: ast.FunctionDef) -> bool:
    """``fn`` carries Triton's ``jit`` (or an ``autotune``/``heuristics`` wrapper of it)."""
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("jit", "autotune", "heuristics"):
            return True
    return False


def parse_source(text: str) -> ast.Module | None:
    """The source's syntax tree, or ``None`` when it does not parse."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def jit_functions(tree: ast.AST) -> Iterator[ast.FunctionDef]:
    """Every ``@triton.jit`` function in ``tree``, nested ones included."""
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and is_jit(fn):
            yield fn
