"""A ``load_inline`` / ``load`` call that Python itself rejects, found by reading the submission (AST).

``torch.utils.cpp_extension.load_inline(name, cpp_sources, cuda_sources=None, ...)`` binds its arguments
before it builds anything: a keyword it does not take (``extra_cuda_flags`` for ``extra_cuda_cflags``) or
a required argument left out (``cpp_sources``) is a ``TypeError`` on every machine, GPU or not, and
KernelBench records it as a failed compile.  The parameters are read from the installed torch's
``torch/utils/cpp_extension.py`` (parsed, never imported) when it is there, else from the list below
(torch 2.9); a call with ``*args`` or ``**kwargs`` is not judged.  The message is Python's own.

>>> src = '''
... from torch.utils.cpp_extension import load_inline
... m = load_inline(name="m", cuda_sources=src, functions=["f"])
... r = load_inline(name="r", cpp_sources=h, cuda_sources=s, extra_cuda_flags=["-O3"])
... '''
>>> [(b.line, b.message) for b in bad_calls(src, SIGNATURES)]  # doctest: +NORMALIZE_WHITESPACE
[(3, "load_inline() missing 1 required positional argument: 'cpp_sources'"),
 (4, "load_inline() got an unexpected keyword argument 'extra_cuda_flags'")]
>>> bad_calls("load_inline('m', h, s, functions=['f'], verbose=True)", SIGNATURES)
[]
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Signature:
    params: tuple[str, ...]  # in order; the first ``required`` have no default
    required: int


#: torch 2.9's signatures (torch/utils/cpp_extension.py), in order; parameters are only ever added
_LOAD_INLINE = (
    "name cpp_sources cuda_sources sycl_sources functions extra_cflags extra_cuda_cflags extra_sycl_cflags "
    "extra_ldflags extra_include_paths build_directory verbose with_cuda with_sycl is_python_module "
    "with_pytorch_error_handling keep_intermediates use_pch no_implicit_headers"
)
_LOAD = (
    "name sources extra_cflags extra_cuda_cflags extra_sycl_cflags extra_ldflags extra_include_paths "
    "build_directory verbose with_cuda with_sycl is_python_module is_standalone keep_intermediates"
)
SIGNATURES: dict[str, Signature] = {
    "load_inline": Signature(tuple(_LOAD_INLINE.split()), 2),
    "load": Signature(tuple(_LOAD.split()), 2),
}


@dataclass(frozen=True)
class BadCall:
    api: str
    line: int
    message: str  # as Python's TypeError says it


def installed_signatures(snapshot: Mapping[str, Any] | None = None) -> dict[str, Signature]:
    """The signatures of the installed torch's ``load_inline`` and ``load`` (the fixed list where the file is
    not found or not readable)."""
    from diagnose.run.compile_check import torch_include_dirs

    inc = torch_include_dirs(snapshot)
    path = Path(inc[0]).parent / "utils" / "cpp_extension.py" if inc else None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8")) if path is not None else None
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        tree = None
    out = dict(SIGNATURES)
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name in SIGNATURES and not node.args.vararg:
            # keyword-only parameters and **kwargs change what binds: keep the fixed list then
            if node.args.kwonlyargs or node.args.kwarg or node.args.posonlyargs:
                continue
            names = tuple(a.arg for a in node.args.args)
            out[node.name] = Signature(names, len(names) - len(node.args.defaults))
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _names(missing: list[str]) -> str:
    quoted = [f"'{m}'" for m in missing]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + (", and " if len(quoted) > 2 else " and ") + quoted[-1]


def _check(node: ast.Call, api: str, sig: Signature) -> str | None:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    for k in node.keywords:
        if k.arg not in sig.params:
            return f"{api}() got an unexpected keyword argument '{k.arg}'"
    if len(node.args) > len(sig.params):
        return None  # Python's wording depends on the defaults; not worth guessing
    positional = sig.params[: len(node.args)]
    for k in node.keywords:
        if k.arg in positional:
            return f"{api}() got multiple values for argument '{k.arg}'"
    given = set(positional) | {k.arg for k in node.keywords}
    missing = [p for p in sig.params[: sig.required] if p not in given]
    if missing:
        return f"{api}() missing {_plural(len(missing), 'required positional argument')}: {_names(missing)}"
    return None


def bad_calls(text: str, signatures: Mapping[str, Signature]) -> list[BadCall]:
    """Every ``load_inline`` / ``load`` call in ``text`` that binding its arguments would reject."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        api = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if api == "load" and (
            "cpp_extension" not in text or (not any(k.arg == "sources" for k in node.keywords) and len(node.args) < 2)
        ):
            continue  # another load() (json.load, torch.load): torch's names its sources, in a file using it
        if api in signatures:
            msg = _check(node, api, signatures[api])
            if msg:
                out.append(BadCall(api, node.lineno, msg))
    return sorted(out, key=lambda b: b.line)
