"""The formats of a placeholder's value (diagnose.explain): a byte count with its unit, a compute
capability, CUDA's version number, a function's name from its signature, ...

``format_value(163842.0, "bytes")`` is ``160 KiB (163,842 bytes)``; a value that is absent (null,
empty, NaN) raises :class:`Absent`, and the text it sits in is left out.
"""

from __future__ import annotations

import math
from typing import Any

from diagnose.clip import clip

FORMATS = (
    "bytes",
    "mib",
    "int",
    "hex",
    "cc",
    "smnum",
    "ccnum",
    "cudaver",
    "percent",
    "pow2",
    "list",
    "name",
    "if",
    "unless",
)


class Absent(Exception):
    """A placeholder has no value in this input."""


def present(value: Any) -> bool:
    if value is None or value == "" or value == () or value == []:
        return False
    return not (isinstance(value, float) and math.isnan(value))


def _bytes(n: float) -> str:
    units = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")
    v = float(n)
    i = 0
    while abs(v) >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    if i == 0:
        return "1 byte" if int(n) == 1 else f"{int(n)} bytes"
    short = f"{v:.1f} {units[i]}".replace(".0 ", " ")
    # the exact count matters for limits (shared memory, registers); past 1 MiB it is noise
    return f"{short} ({int(n):,} bytes)" if i == 1 else short


def _number(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e18:
        return str(int(v))
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _name(sig: str) -> str:
    """A function's name from its signature: no return type, no parameter list."""
    sig = sig.strip()
    if sig.startswith("void "):
        sig = sig[5:]
    depth = 0
    for i, ch in enumerate(sig):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0 and i > 0:
            return sig[:i]
    return sig


def _short_name(name: str) -> str:
    """A long qualified name without its outer scopes (``a::b::Test::run`` as ``...::Test::run``): the
    innermost part names the function; a name with no scope to drop is cut like any text."""
    depth, cuts = 0, []
    for i, ch in enumerate(name):
        depth += ch == "<"
        depth -= ch == ">" and depth > 0
        if depth == 0 and name.startswith("::", i):
            cuts.append(i)
    for i in cuts:
        if len(name) - i + 3 <= MAX_NAME:
            return "..." + name[i:]
    return clip(name)


MAX_NAME = 100


def format_value(value: Any, fmt: str | None = None) -> str:
    if fmt in ("if", "unless"):
        # a condition, not a value: renders nothing where it holds, and its text is left out where not
        holds = present(value) and bool(value)
        if holds == (fmt == "if"):
            return ""
        raise Absent
    if not present(value):
        raise Absent
    if fmt == "name":
        name = _name(str(value))
        return name if len(name) <= MAX_NAME else _short_name(name)
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value[:8]) + (f" (+{len(value) - 8} more)" if len(value) > 8 else "")
    if fmt is None or fmt == "list":
        return _number(value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if fmt == "bytes":
        return _bytes(x)
    if fmt == "mib":
        return _bytes(x * 1024 * 1024)
    if fmt == "int":
        return f"{int(x):,}"
    if fmt == "hex":
        return hex(int(x))
    if fmt in ("cc", "smnum", "ccnum"):  # a compute capability: "7.5 (sm_75)", its sm_ digits "75", PyTorch's "7.5"
        major, minor = int(x), round((x - int(x)) * 10)
        if fmt == "smnum":
            return f"{major}{minor}"
        return f"{major}.{minor}" if fmt == "ccnum" else f"{major}.{minor} (sm_{major}{minor})"
    if fmt == "cudaver":  # 1000 * major + 10 * minor
        return f"{int(x) // 1000}.{int(x) % 1000 // 10}"
    if fmt == "percent":
        return f"{x * 100:.3g}%"
    if fmt == "pow2":
        if x <= 0:
            raise Absent
        return f"2^{math.log2(x):.1f}".replace(".0", "")
    return _number(value)
