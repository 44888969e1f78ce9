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
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_MISSING = re.compile(r"module 'triton\.language' has no attribute '(\w+)'")
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


def unknown_name(text: str, installed: str | None) -> str | None:
    """The ``triton.language`` attribute the output says is missing, when no release has it; else None."""
    m = _MISSING.search(text)
    version = _version(installed)
    if m is None or version is None or version < NEWEST_KNOWN or m.group(1) in MOVED:
        return None
    return m.group(1)


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
