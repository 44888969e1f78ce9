"""Names a submission's entry points use that nothing defines: the ``NameError`` the harness meets when it calls them.

Read from the source with :mod:`symtable`, never imported or run, so it also answers for a submission that
cannot run here (a ``load_inline`` extension on a machine without a GPU).  The entry points are what the
harnesses call: ``ModelNew.__init__`` and ``ModelNew.forward`` (KernelBench), ``custom_kernel`` (GPU MODE), and
what those call by name (a module-level function, a ``self.method``), transitively.  A helper nobody calls is not
judged (model-written files often keep a ``get_inputs`` that names sizes they never define, which no harness runs).

A name counts as defined when the module binds it anywhere (an assignment, an import, a ``def`` or ``class``, a
``global`` statement in a function that assigns it) or Python provides it (builtins, module attributes).  A file
that can define names kdiag cannot see (``from x import *``, ``globals()``, ``exec``) is not judged.

>>> [(u.name, u.function) for u in undefined('''
... class ModelNew:
...     def forward(self, x):
...         return x * TILE + helper(x)
... def helper(x):
...     return x + OFFSET
... def get_inputs():
...     return [M]
... ''')]
[('TILE', 'ModelNew.forward'), ('OFFSET', 'helper')]
>>> undefined("TILE = 16\\nclass ModelNew:\\n    def forward(self, x):\\n        return x * TILE\\n")
[]
"""

from __future__ import annotations

import ast
import builtins
import symtable
from collections.abc import Iterator
from dataclasses import dataclass

#: the classes and functions a KernelBench or GPU MODE harness calls
ENTRY_METHODS = {"ModelNew": ("__init__", "forward")}
ENTRY_FUNCTIONS = ("custom_kernel",)
#: names every module has without binding them
_PROVIDED = frozenset(dir(builtins)) | {"__file__", "__builtins__", "__annotations__", "__path__", "__cached__"}
#: what can bind module names out of kdiag's sight
_OPAQUE_CALLS = frozenset({"globals", "exec", "eval", "vars", "setattr", "__import__"})

Func = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Undefined:
    name: str
    line: int  # the first use in the function
    function: str  # "ModelNew.forward", "custom_kernel"


def _opaque(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _OPAQUE_CALLS:
            return True
    return False


def _tables(table: symtable.SymbolTable) -> Iterator[symtable.SymbolTable]:
    yield table
    for child in table.get_children():
        yield from _tables(child)


def _module_names(top: symtable.SymbolTable) -> set[str]:
    names = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    for t in _tables(top):
        names |= {s.get_name() for s in t.get_symbols() if s.is_declared_global() and s.is_assigned()}
    return names


def _reachable(tree: ast.Module) -> list[tuple[str, Func]]:
    """The entry points and what they call by name, as (qualified name, def)."""
    functions = {n.name: n for n in tree.body if isinstance(n, Func)}
    methods: dict[str, dict[str, Func]] = {}
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and n.name in ENTRY_METHODS:
            methods[n.name] = {m.name: m for m in n.body if isinstance(m, Func)}
    todo: list[tuple[str, Func]] = [(f, functions[f]) for f in ENTRY_FUNCTIONS if f in functions]
    for owner, names in ENTRY_METHODS.items():
        todo += [(f"{owner}.{m}", methods[owner][m]) for m in names if m in methods.get(owner, {})]
    seen: dict[str, Func] = {}
    while todo:
        qual, node = todo.pop()
        if qual in seen:
            continue
        seen[qual] = node
        cls = qual.split(".")[0] if "." in qual else None
        for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)):
            f = call.func
            if isinstance(f, ast.Name) and f.id in functions:
                todo.append((f.id, functions[f.id]))
            elif (cls and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
                  and f.attr in methods.get(cls, {})):  # fmt: skip
                todo.append((f"{cls}.{f.attr}", methods[cls][f.attr]))
    return list(seen.items())


def _table_of(top: symtable.SymbolTable, qual: str, node: Func) -> symtable.SymbolTable | None:
    for t in _tables(top):
        if t.get_type() == "function" and t.get_name() == node.name and t.get_lineno() == node.lineno:
            return t
    return None


def _first_use(node: Func, name: str) -> tuple[int, int]:
    """Line and column of the first read of ``name`` in ``node``."""
    uses = [(n.lineno, n.col_offset) for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]
    return min(uses, default=(node.lineno, 0))


def undefined(text: str) -> list[Undefined]:
    """Each name an entry point (or what it calls) reads that nothing defines, in the order the calls are found."""
    try:
        tree = ast.parse(text)
        top = symtable.symtable(text, "<submission>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if _opaque(tree):
        return []
    known = _module_names(top) | _PROVIDED
    out: list[Undefined] = []
    for qual, node in sorted(_reachable(tree), key=lambda q: q[1].lineno):
        table = _table_of(top, qual, node)
        if table is None:
            continue
        names: set[str] = set()
        for t in _tables(table):
            names |= {s.get_name() for s in t.get_symbols() if s.is_global() and s.is_referenced()}
        for name in sorted(names - known, key=lambda n: (_first_use(node, n), n)):
            out.append(Undefined(name, _first_use(node, name)[0], qual))
    return out
