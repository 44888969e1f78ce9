"""A ``triton.language`` name the kernel uses and no Triton release defines: the code's error, not the install's.

``module 'triton.language' has no attribute 'astype'`` reads like version skew (the catalogue's
``triton-api-missing``: code written for another release), and it is when the name is one that
``triton.language`` gained or lost between releases.  When the installed Triton is at least the newest
release kdiag knows, and the name is not among those that moved, no release has it: a model-written
kernel called ``tl.astype`` (NumPy's spelling of ``x.to(dtype)``), ``tl.relu`` or ``tl.tanh``, and a GPU
run fails on it the same way (Triton's ``CompilationError`` at that line).

>>> unknown_name("AttributeError: module 'triton.language' has no attribute 'astype'", "3.7.1")
'astype'
>>> unknown_name("AttributeError: module 'triton.language' has no attribute 'libdevice'", "3.7.1") is None
True
>>> unknown_name("AttributeError: module 'triton.language' has no attribute 'astype'", "3.1.0") is None
True
>>> unknown_name("module 'triton.language.math' has no attribute 'tanh'", "3.7.1") is None
True

``triton.language.math`` held libdevice's functions until 3.0 moved them to ``triton.language.extra``: a name
missing from it is version skew when it is one of those (``tl.math.tanh``, ``tl.math.pow``) or one of today's
``tl.math`` names, and no release's name otherwise (``tl.math.inf``, ``tl.math.divide``), which
:func:`unknown_name` returns as ``math.NAME``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_MISSING = re.compile(r"module 'triton\.language(\.math)?' has no attribute '(\w+)'")
#: the newest release whose ``triton.language`` kdiag's list below was checked against; an older install
#: may lack a name a newer one has, so nothing is concluded there
NEWEST_KNOWN = (3, 7)
#: names ``triton.language`` had in one release and not in another (removed, renamed or moved out):
#: ``libdevice`` (moved to ``tl.math`` in 2.2, then to ``triton.language.extra``), the float8 names renamed
#: in 2.2/3.0, the experimental TMA descriptor calls replaced by ``make_tensor_descriptor``, and
#: ``view`` (deprecated for ``reshape``)
MOVED = frozenset(
    {
        "libdevice",
        "float8e4",
        "float8e4b15x4",
        "view",
        "reduction",
        "experimental_descriptor_load",
        "experimental_descriptor_store",
        "_experimental_descriptor_load",
        "_experimental_descriptor_store",
        "_experimental_make_tensor_descriptor",
        "nv_tma_desc_type",
    }
)


def _version(text: str | None) -> tuple[int, int] | None:
    m = re.match(r"(\d+)\.(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


#: Triton's code generator on an attribute of one of its tensors: ``AttributeError("'tensor' object has no attribute
#: 'dtype_element'")``
_TENSOR_ATTR = re.compile(r"'tensor' object has no attribute '(\w+)'")


def unknown_name(text: str, installed: str | None) -> str | None:
    """The ``triton.language`` attribute the output says is missing, when no release has it; else None
    (``math.NAME`` for a ``triton.language.math`` name, as the module docstring says; ``tensor.NAME`` for an
    attribute of a Triton tensor that no release's tensor has, as :func:`tensor_names` reads them).

    >>> unknown_name("AttributeError: 'tensor' object has no attribute 'dtype_element'", "3.7.1")
    'tensor.dtype_element'
    >>> unknown_name("AttributeError: 'tensor' object has no attribute 'dtype'", "3.7.1") is None
    True
    """
    m = _MISSING.search(text)
    if m is not None:
        return _never_had(m.group(2), bool(m.group(1)), installed)
    t = _TENSOR_ATTR.search(text)
    version = _version(installed)
    if t is None or version is None or version < NEWEST_KNOWN:
        return None
    known = tensor_names()
    return f"tensor.{t.group(1)}" if known and t.group(1) not in known else None


@functools.cache
def triton_root() -> Path | None:
    """The installed Triton package's folder, found without importing it (None when Triton is not installed)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        spec = None
    return Path(spec.origin).parent if spec is not None and spec.origin else None


@functools.cache
def tensor_names() -> frozenset[str]:
    """Every attribute a Triton tensor may have, as far as the installed Triton tells, taken wide: every function
    and every ``self.NAME =`` of ``triton.language``'s modules (the ``tensor`` class's methods and fields, and the
    functions ``@_tensor_member_fn`` makes methods), and ``triton.language.__all__``; but an operator (``__pow__``) only
    where the ``tensor`` class itself defines it, since ``constexpr`` and ``dtype`` define operators a tensor lacks;
    read with one pattern per file
    (parsing them all would cost more than the question is worth); empty when Triton is not installed or its
    ``core.py`` defines no ``tensor`` class (then nothing is concluded)."""
    root = triton_root()
    if root is None:
        return frozenset()
    lang = root / "language"
    names: set[str] = set()
    for path in sorted(lang.glob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        span = (0, 0)  # the tensor class's own body: the only place its operators (dunder methods) are defined
        if path.name == "core.py":
            cls = _TENSOR_CLASS.search(text)
            if cls is None:
                return frozenset()
            after = _NEXT_CLASS.search(text, cls.end())
            span = (cls.start(), after.start() if after else len(text))
        for m in _DEF_OR_FIELD.finditer(text):
            name = m.group(1) or m.group(2)
            if not (name.startswith("__") and name.endswith("__")) or span[0] <= m.start() < span[1]:
                names.add(name)
    return frozenset(names | installed_language()[1]) if names else frozenset()


_TENSOR_CLASS = re.compile(r"(?m)^class tensor\b")
_NEXT_CLASS = re.compile(r"(?m)^class \w")
_DEF_OR_FIELD = re.compile(r"(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)|\bself\.(\w+)[ \t]*(?::[^=\n]*)?=(?!=)")


def _never_had(name: str, in_math: bool, installed: str | None) -> str | None:
    """``name`` (``math.NAME`` for ``triton.language.math``) when no Triton release has it, else None."""
    version = _version(installed)
    if version is None or version < NEWEST_KNOWN:
        return None
    if in_math:
        ever = math_names()
        return f"math.{name}" if ever and name not in ever else None
    # a name today's release has was added after the release that ran (version skew), as a moved one was
    return None if name in MOVED or name in installed_language()[1] else name


def _defined(path: Any) -> frozenset[str]:
    """The top-level functions a module of the installed Triton defines, read from its file (never imported)."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return frozenset()
    return frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef))


#: libdevice wrappers older Triton releases carried (``triton.language.libdevice`` in 2.0-2.1, ``tl.math`` in 2.2)
#: that today's ``triton/language/extra/libdevice.py`` no longer defines: ``min`` and ``max`` (``__nv_min``,
#: ``__nv_umin``, ``__nv_llmin``, ``__nv_fminf``, ... and their max twins), replaced by ``tl.minimum`` and ``tl.maximum``
OLD_LIBDEVICE = frozenset({"min", "max"})


@functools.cache
def math_names() -> frozenset[str]:
    """Every name ``triton.language.math`` has had, as far as the installed Triton tells: today's ``tl.math``
    functions and libdevice's (which ``tl.math`` held before 3.0), read from the installed files, with the wrappers
    only older releases had (:data:`OLD_LIBDEVICE`); empty when Triton is not installed or its files do not say (then
    nothing is concluded)."""
    root = triton_root()
    if root is None:
        return frozenset()
    lang = root / "language"
    libdevice = [lang / "extra" / "libdevice.py", *sorted((lang / "extra").glob("*/libdevice.py"))]
    today = _defined(lang / "math.py")
    old = frozenset().union(*(_defined(p) for p in libdevice))
    return today | old | OLD_LIBDEVICE if today and old else frozenset()


def installed(snapshot: Mapping[str, Any] | None) -> str | None:
    """The installed Triton's version from the run's environment snapshot (None when it is not known).

    >>> installed({"software": {"triton": {"version": {"value": "3.7.1"}}}})
    '3.7.1'
    >>> installed(None) is None
    True
    """
    from diagnose.envinfo.findings import value_of

    sw = (snapshot or {}).get("software")
    tri = sw.get("triton") if isinstance(sw, Mapping) else None
    got = value_of(tri.get("version")) if isinstance(tri, Mapping) else None
    return got if isinstance(got, str) else None


@functools.cache
def installed_language() -> tuple[str | None, frozenset[str]]:
    """The installed Triton's version and ``triton.language.__all__``, read from its files (never imported);
    (None, empty) when Triton is not installed or its files do not say."""
    import ast

    root = triton_root()
    if root is None:
        return None, frozenset()
    try:
        version = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", (root / "__init__.py").read_text(encoding="utf-8"))
        tree = ast.parse((root / "language" / "__init__.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None, frozenset()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                names = ast.literal_eval(node.value)
            except ValueError:
                break
            return (version.group(1) if version else None), frozenset(n for n in names if isinstance(n, str))
    return None, frozenset()


_TL_NAME = re.compile(r"(?<![\w.])tl\.([A-Za-z_]\w*)")
_MATH_ATTR = re.compile(r"\.([A-Za-z_]\w*)")
#: what ``triton.language`` has besides ``__all__``: its submodules and a few helpers
_SUBMODULES = frozenset({"core", "random", "standard", "semantic", "math", "extra", "target_info", "str_to_ty"})


def unknown_in_source(text: str, installed: str | None, names: frozenset[str]) -> str | None:
    """The first ``tl.NAME`` a kernel's source uses that no Triton release has (as :func:`unknown_name` decides,
    against the installed release's ``__all__``), for a result that recorded a compile failure; else None.

    >>> unknown_in_source("x = tl.astype(v, tl.float32)", "3.7.1", frozenset({"float32"}))
    'astype'
    >>> unknown_in_source("x = v.to(tl.float32)", "3.7.1", frozenset({"float32"})) is None
    True
    >>> unknown_in_source("y = tl.math.tanh(x)", "3.7.1", frozenset({"float32"})) is None
    True
    """
    if not names or "tl." not in text:
        return None
    for m in _TL_NAME.finditer(text):
        name = m.group(1)
        if name == "math" and (sub := _MATH_ATTR.match(text, m.end())):
            if got := _never_had(sub.group(1), True, installed):
                return got
            continue
        if name in names or name in _SUBMODULES or name.startswith("_"):
            continue
        if _never_had(name, False, installed):
            return name
    return None
