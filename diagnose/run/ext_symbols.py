"""A function ``load_inline`` binds whose declaration and definition do not link: ``undefined symbol`` at load.

``load_inline`` compiles ``cpp_sources`` (the declarations, and the pybind11 module it writes for
``functions``) and ``cuda_sources`` separately, then links them into one shared object.  Each source
compiles on its own; the module fails only when Python loads it (``undefined symbol: f``) if the
function it binds is declared ``extern "C"`` in one and defined with C++ linkage in the other (or the
other way round), or is declared and defined nowhere.  This reads the sources (what
:mod:`diagnose.run.cuda_sources` extracted), never compiles or loads them.

>>> from diagnose.run.cuda_sources import extract_text
>>> found = extract_text('''
... from torch.utils.cpp_extension import load_inline
... src = "torch::Tensor f(torch::Tensor x) { return x; }"
... head = 'extern "C" torch::Tensor f(torch::Tensor x);'
... m = load_inline(name="m", cpp_sources=head, cuda_sources=src, functions=["f"])
... ''')
>>> [(p.name, p.problem) for p in unlinked(found)]
[('f', 'declared extern "C" in cpp_sources, defined with C++ linkage in cuda_sources')]
>>> unlinked(extract_text(
...     'load_inline(name="m", cpp_sources="int f(int);", cuda_sources="int f(int x) { return x; }", functions=["f"])'))
[]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from diagnose.run.cuda_sources import Found

_BOUND = re.compile(r'm\.def\("(\w+)"')
_EXTERN_C_BLOCK = re.compile(r'extern\s+"C"\s*\{')


@dataclass(frozen=True)
class Unlinked:
    name: str
    problem: str  # what does not match
    symbol: str  # the symbol the loader would say is undefined (the C name for a C declaration)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _close(text: str, i: int) -> int:
    """The index after the parenthesis that closes the one at ``i`` (-1 when unbalanced)."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _in_extern_c_block(text: str, pos: int) -> bool:
    for m in _EXTERN_C_BLOCK.finditer(text, 0, pos):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if j > pos:
            return True
    return False


def _occurrences(text: str, name: str) -> list[tuple[str, bool]]:
    """("def" | "decl", C linkage) for each declaration or definition of ``name`` at namespace level."""
    out = []
    for m in re.finditer(rf"(?<![\w.:>])\b{re.escape(name)}\s*\(", text):
        head = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        if not re.search(r"[\w>*&]\s*$", head) or re.search(r"\b(return|=|\.|->|,|\()", head):
            continue  # a call or an expression, not a declarator
        end = _close(text, m.end() - 1)
        if end < 0:
            continue
        rest = text[end : end + 80].lstrip()
        rest = re.sub(r"^(const|noexcept|override)\b\s*", "", rest)
        kind = "def" if rest.startswith("{") else "decl" if rest.startswith(";") else None
        if kind is None:
            continue
        c_link = 'extern "C"' in re.sub(r"\s+", " ", head) or _in_extern_c_block(text, m.start())
        out.append((kind, c_link))
    return out


def unlinked(found: Found) -> list[Unlinked]:
    """Functions of a load_inline call whose C++ declaration and CUDA definition would not link."""
    cpp = [s for s in found.sources if s.api == "load_inline" and s.lang == "cpp"]
    out = []
    for c in cpp:
        cuda = [s for s in found.sources if s.api == "load_inline" and s.lang == "cuda" and s.line == c.line]
        head = c.text.split("\nPYBIND11_MODULE(", 1)[0]
        decl_text, def_text = _strip_comments(head), _strip_comments("\n".join(s.text for s in cuda))
        for name in dict.fromkeys(_BOUND.findall(c.text)):
            decls = _occurrences(decl_text, name)
            defs = [o for o in _occurrences(def_text, name) if o[0] == "def"]
            defs += [o for o in decls if o[0] == "def"]
            declared = [o for o in decls if o[0] == "decl"]
            if not declared or not cuda:
                continue  # an undeclared name fails the host compile (compile_check); no CUDA source: nothing to link
            if not defs:
                out.append(Unlinked(name, "declared in cpp_sources, defined in neither source", name))
                continue
            d_c, f_c = declared[0][1], defs[0][1]
            if d_c != f_c:
                how = {True: 'extern "C"', False: "with C++ linkage"}
                problem = f"declared {how[d_c]} in cpp_sources, defined {how[f_c]} in cuda_sources"
                out.append(Unlinked(name, problem, name if d_c else f"the C++ (mangled) name of {name}"))
    return out
