"""The ``@triton.jit`` functions of a Python source, for the static checks that read a kernel's code.

>>> src = "import triton\\n@triton.jit\\ndef k(x):\\n    pass\\ndef host():\\n    pass\\n"
>>> [fn.name for fn in jit_functions(ast.parse(src))]
['k']
>>> parse_source("def (")
>>> nested = "import triton\\n@triton.jit\\ndef k(x):\\n    def helper(v):\\n        return v\\n    helper(x)\\n"
>>> nested_function_defs(ast.parse(nested))
[('k', 'helper', 4)]
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


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


def jit_functions_in(text: str) -> list[ast.FunctionDef]:
    """:func:`jit_functions` of a source text; none when it does not parse."""
    try:
        return list(jit_functions(ast.parse(text)))
    except (SyntaxError, ValueError):
        return []


def tl_call(node: ast.AST) -> str | None:
    """``"load"`` for ``tl.load(...)`` / ``triton.language.load(...)``: the attribute called on ``tl``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        base = node.func.value
        if (isinstance(base, ast.Name) and base.id == "tl") or (
            isinstance(base, ast.Attribute) and base.attr == "language"
        ):
            return node.func.attr
    return None


def nested_function_defs(tree: ast.AST) -> list[tuple[str, str, int]]:
    """``(kernel, function, line)`` for each function defined inside a ``@triton.jit`` function's body.

    Triton's code generator compiles no nested function definition (3.7.1, compiler/code_generator.py:
    "nested function definition is not supported."; later releases word it "nested function definitions are not
    allowed inside a @triton.jit kernel"): a helper must be a module-level ``@triton.jit`` function.  The
    interpreter runs the kernel as Python and may let it pass."""
    found: list[tuple[str, str, int]] = []
    for fn in jit_functions(tree):
        for node in ast.walk(fn):
            if node is not fn and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((fn.name, node.name, node.lineno))
    return found


def nested_def_facts(path: Path | None) -> dict[str, object]:
    """The first function defined inside a ``@triton.jit`` function of the target's source, as run facts."""
    if path is None or path.suffix != ".py":
        return {}
    try:
        tree = parse_source(path.read_text(errors="replace"))
    except OSError:
        return {}
    found = nested_function_defs(tree) if tree is not None else []
    if not found:
        return {}
    kernel, name, line = found[0]
    return {"triton_nested_def": f"{name} (line {line}, inside {kernel})"}
