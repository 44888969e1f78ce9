"""A ``cpp_extension.load`` whose sources define no Python module: the import fails on any machine.

``load(name, sources=[...])`` compiles and links the files, then imports the library as a Python module; only a
``PYBIND11_MODULE`` in one of the sources defines its ``PyInit_<name>``.  (``load_inline`` writes that module
itself for ``functions``; ``load`` does not, nor does ``load_inline`` given no ``functions``.)  Sources without one build a library Python refuses: ``ImportError:
dynamic module does not define module export function (PyInit_<name>)``.  Read from the sources
(:mod:`diagnose.run.cuda_sources`), never built: a call whose files kdiag cannot all read, a source that includes a
local header, or ``is_python_module=False`` is not judged.

>>> no_module('''
... from torch.utils.cpp_extension import load
... src = "__global__ void k(float* x) { x[0] = 1.f; }"
... with open("k.cu", "w") as f:
...     f.write(src)
... m = load(name="m", sources=["k.cu"])
... ''')
NoModule(name='m', line=6, files=('k.cu',), api='load')
>>> no_module('load(name="m", sources=["k.cu"])\\nopen("k.cu", "w").write("PYBIND11_MODULE(m, mod) {}")') is None
True
>>> no_module('m = load_inline(name="m", cpp_sources="void f();", cuda_sources="void f() {}")').api
'load_inline'
>>> no_module('m = load_inline(name="m", cpp_sources="void f();", cuda_sources="void f() {}", functions=["f"])') is None
True
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from diagnose.run import cuda_sources as S

_MODULE = re.compile(r"\bPYBIND11_MODULE\s*\(")
_LOCAL_INCLUDE = re.compile(r'#\s*include\s*"')
_SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx")


@dataclass(frozen=True)
class NoModule:
    name: str  # the extension's name: the loader looks for PyInit_<name>
    line: int  # the load call
    files: tuple[str, ...]
    api: str = "load"  # load_inline: given no functions, it writes no bindings either


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


def no_module(text: str, folder: Path | None = None) -> NoModule | None:
    """The first ``load`` call whose sources all read and none defines a ``PYBIND11_MODULE``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    found = S.extract_text(text, folder)
    res = S._Resolver(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and S._call_name(node) == "load_inline":
            inline = _inline_without_module(res, node)
            if inline is not None:
                return inline
            continue
        if not (isinstance(node, ast.Call) and S._call_name(node) == "load"):
            continue
        sources_arg, name_arg = S._arg(node, "sources", 1), S._arg(node, "name", 0)
        flag = S._arg(node, "is_python_module", None)
        if sources_arg is None or (isinstance(flag, ast.Constant) and flag.value is False):
            continue
        files = [f for f in res.strings(sources_arg) or [] if Path(f).suffix in _SOURCE_SUFFIXES]
        mine = [s for s in found.sources if s.api == "load" and s.line == node.lineno]
        names = res.strings(name_arg) if name_arg is not None else None
        if not files or len(mine) != len(files) or not names or len(names) != 1:
            continue  # a file kdiag could not read, or a name it cannot know
        texts = [_strip_comments(s.text) for s in mine]
        if any(_MODULE.search(t) or _LOCAL_INCLUDE.search(t) for t in texts):
            continue
        return NoModule(names[0], node.lineno, tuple(files))
    return None


def _inline_without_module(res: S._Resolver, node: ast.Call) -> NoModule | None:
    """A ``load_inline`` given no ``functions`` whose sources (all read) define no ``PYBIND11_MODULE``: it writes no
    bindings then, and the library it builds has no ``PyInit_<name>`` either."""
    functions = S._arg(node, "functions", 3)
    if functions is not None and not (isinstance(functions, ast.Constant) and functions.value is None):
        return None
    flag = S._arg(node, "is_python_module", None)
    if isinstance(flag, ast.Constant) and flag.value is False:
        return None
    names = res.strings(S._arg(node, "name", 0))
    cpp, cuda = S._arg(node, "cpp_sources", 1), S._arg(node, "cuda_sources", 2)
    texts = [res.strings(cpp) if cpp is not None else [], res.strings(cuda) if cuda is not None else []]
    if not names or len(names) != 1 or any(t is None for t in texts):
        return None  # a name or a source kdiag cannot know
    bodies = [_strip_comments(t) for got in texts for t in got or []]
    if not any(b.strip() for b in bodies) or any(_MODULE.search(b) or _LOCAL_INCLUDE.search(b) for b in bodies):
        return None
    return NoModule(names[0], node.lineno, ("its cpp_sources and cuda_sources",), "load_inline")
