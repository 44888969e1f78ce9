"""Explanations from the evidence: rule text that names this input's values.

A rule's ``what``, ``why`` and ``fix`` may reference evidence symbols (the names `when` uses,
:func:`diagnose.evidence.rule_types`)::

    what: The kernel asks for {concept_requested:bytes} of shared memory; the device has {concept_limit:bytes}.
    why: That is {ratio:concept_requested/concept_limit} the limit.

A placeholder is ``{symbol}`` or ``{symbol:format}`` (a symbol starts with its source: ``concept_``,
``sanitizer_``, ...; other braces are plain text); ``{ratio:a/b}`` divides two symbols.  Formats:
``bytes`` (a byte count, shown with its binary unit), ``mib`` (a count of MiB), ``int``, ``hex``,
``cc`` (a compute capability: ``8.6 (sm_86)``), ``pow2`` (``2^33``), ``list`` and ``name`` (a
function's name from its signature).  ``{symbol:if}`` and ``{symbol:unless}`` are conditions, not
values: they render nothing where the symbol is true (``if``) or false or absent (``unless``), and
otherwise leave their ``[[ ... ]]`` segment (else their sentence) out, so a text states only the
branch that holds (``[[{concept_over_every_gpu:if}No GPU fits it.]]``).  Strings are cut at 100 characters.  Nothing else is
evaluated: a placeholder is a name and a format, never code.

When a placeholder's value is absent (null, empty, NaN, a zero divisor), the text it sits in is left
out rather than shown with a gap: the ``[[ ... ]]`` segment around it, else its sentence.  The text
never shows ``None``.  ``kdiag rules lint`` checks every placeholder names a real symbol and format,
and that the text renders, on each of the rule's own match examples.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


def _placeholder() -> re.Pattern[str]:
    from diagnose.evidence import SOURCES

    # only names that start with an evidence source (``{concept_...}``) or ``{ratio:...}``: other braces
    # in rule text (``cuda:{local_rank}``, C++ initialisers) are text
    heads = "|".join(sorted(SOURCES, key=len, reverse=True))
    return re.compile(r"\{((?:" + heads + r")_[a-z0-9_]+|ratio)(?::([A-Za-z0-9_/]+))?\}")


PLACEHOLDER = _placeholder()
OPTIONAL = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
# a sentence ends at . ! ? followed by space and a capital, a backtick, a quote or a bracket
_SENTENCE = re.compile(r"((?<=[.!?])\s+(?=[A-Z`\"'(\[]))")
FORMATS = ("bytes", "mib", "int", "hex", "cc", "pow2", "list", "name", "if", "unless")
MAX_TEXT = 100  # a longer string value is cut
_HIDDEN = ("sources", "log_text")  # symbols never listed under "In this log"


class Absent(Exception):
    """A placeholder has no value in this input."""


@dataclass(frozen=True)
class Rendered:
    what: str
    why: str
    fix: str
    caveats: str | None
    facts: tuple[tuple[str, str], ...]  # (symbol, value) the rule read, with a value here


def placeholders(text: str) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in PLACEHOLDER.finditer(text or "")]


def problems(text: str, symbols: Iterable[str]) -> list[str]:
    """What is wrong with the placeholders of ``text`` (unknown symbols or formats)."""
    known = set(symbols)
    out = []
    for name, fmt in placeholders(text):
        if name == "ratio":
            parts = (fmt or "").split("/")
            if len(parts) != 2 or not all(parts):
                out.append("{ratio:A/B} needs two evidence symbols")
                continue
            out += [f"{{ratio:...}}: unknown evidence symbol {p!r}" for p in parts if p not in known]
            continue
        if name not in known:
            out.append(f"unknown evidence symbol {{{name}}}")
        if fmt is not None and fmt not in FORMATS:
            out.append(f"{{{name}:{fmt}}}: unknown format (known: {', '.join(FORMATS)})")
    return out


def _present(value: Any) -> bool:
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
        return f"{int(n)} bytes"
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


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def format_value(value: Any, fmt: str | None = None) -> str:
    if fmt in ("if", "unless"):
        # a condition, not a value: renders nothing where it holds, and its text is left out where not
        holds = _present(value) and bool(value)
        if holds == (fmt == "if"):
            return ""
        raise Absent
    if not _present(value):
        raise Absent
    if fmt == "name":
        return _clip(_name(str(value)))
    if isinstance(value, str):
        return _clip(value)
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
    if fmt == "cc":
        major, minor = int(x), round((x - int(x)) * 10)
        return f"{major}.{minor} (sm_{major}{minor})"
    if fmt == "pow2":
        if x <= 0:
            raise Absent
        return f"2^{math.log2(x):.1f}".replace(".0", "")
    return _number(value)


def _value(name: str, fmt: str | None, context: Mapping[str, Any]) -> str:
    if name == "ratio":
        a, _, b = (fmt or "").partition("/")
        num: Any = context.get(a)
        den: Any = context.get(b)
        if not _present(num) or not _present(den):
            raise Absent
        try:
            r = float(num) / float(den)
        except (TypeError, ValueError, ZeroDivisionError) as exc:
            raise Absent from exc
        if r >= 10:
            return f"{r:.0f}×"
        # two significant digits, three where two would round a ratio above 1 down to "1×"
        return f"{r:.2g}×" if r < 1 or f"{r:.2g}" != "1" else f"{r:.3g}×"
    return format_value(context.get(name), fmt)


def _fill(text: str, context: Mapping[str, Any]) -> str:
    """Every placeholder of ``text`` replaced (raises Absent when one has no value)."""
    return PLACEHOLDER.sub(lambda m: _value(m.group(1), m.group(2), context), text)


def render(text: str, context: Mapping[str, Any]) -> str:
    """``text`` with its placeholders filled from ``context``; segments and sentences whose values
    are absent left out."""
    if not text or ("{" not in text and "[[" not in text):
        return text

    def optional(m: re.Match[str]) -> str:
        try:
            return _fill(m.group(1), context)
        except Absent:
            return "\0"  # dropped; the space around it is tidied below

    text = OPTIONAL.sub(optional, text)
    pieces = _SENTENCE.split(text)
    out: list[str] = []
    for i in range(0, len(pieces), 2):
        sentence = pieces[i]
        try:
            filled = _fill(sentence, context)
        except Absent:
            continue
        if out:
            out.append(pieces[i - 1] if i > 0 else " ")
        out.append(filled)
    result = "".join(out)
    # the gap a dropped segment leaves: no space before the punctuation that follows it (a value's own
    # spacing, `not supported on .target`, is kept)
    result = re.sub(r"[ \t]*\0[ \t]*(?=[,.;:)])", "", result)
    result = re.sub(r"[ \t]*\0[ \t]*", " ", result)
    return re.sub(r"(?<=\S)[ \t]{2,}", " ", result).strip()


def read_facts(symbols: Iterable[str], context: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The values of the facts a rule read that this input has (for "In this log: ...")."""
    out = []
    for name in symbols:
        if name in _HIDDEN or name.endswith("_lines"):
            continue
        value = context.get(name)
        if value is False or not _present(value):
            continue
        fmt = "bytes" if name.endswith("_bytes") else "mib" if name.endswith("_mib") else None
        try:
            shown = format_value(value, fmt)
        except Absent:
            continue
        out.append((name, shown if len(shown) <= 120 else shown[:117] + "..."))
    return tuple(out)


def explain_finding(rule: Any, evidence: Any, context: Mapping[str, Any] | None = None) -> Rendered:
    """A rule's explanation rendered against one input's evidence (``context``: its rule context, when
    the caller has it already)."""
    if context is None:
        context = evidence.context()
    e = rule.explain
    symbols = dict.fromkeys([*rule.symbols, *template_symbols(rule)])
    fw = framework(context) if e.fixes else None  # the framework only picks among per-framework fixes
    fix = dict(e.fixes).get(fw, e.fix) if fw else e.fix
    # a text whose every sentence needs an absent value falls back to the title (lint keeps one
    # sentence of each text free of placeholders, so this is for rules from elsewhere)
    # where the failing code lives leads the fix (a library's, generated, the toolchain's), and a fix's
    # pointer to a source line names the log's own line or says there is none (diagnose.placement)
    from diagnose.placement import located_caveats, located_fix, location_facts

    caveats = (render(e.caveats, context) or None) if e.caveats else None
    return Rendered(
        what=render(e.what, context) or rule.title,
        why=render(e.why, context) or rule.title,
        fix=located_fix(render(fix, context) or rule.title, rule.category, context),
        caveats=located_caveats(caveats, rule.failure_mode, context),
        facts=((("framework", fw),) if fw and e.fixes else ()) + read_facts(symbols, context) + location_facts(context),
    )


# --- the framework the failing code is written in ---------------------------------------------

_JAX = re.compile(r"\bjax(?:lib)?\b|XlaRuntimeError|\bpallas\b", re.IGNORECASE)
_TRITON = re.compile(r"\btriton\b|@triton\.jit|\btl\.(?:load|store|dot|arange)\b|Triton Error \[CUDA\]")
_CUPY = re.compile(r"\bcupyx?\b", re.IGNORECASE)
_NUMBA = re.compile(r"\bnumba\b", re.IGNORECASE)
# c10's wording of a CUDA error raised as a Python exception (`RuntimeError: CUDA error: ...`), and the
# THC checks of older releases
_TORCH = re.compile(
    r"\btorch\b|\bPyTorch\b|\bATen\b|TORCH_USE_CUDA_DSA|\bTHCudaCheck\b|\bTHC/"
    r"|(?:RuntimeError|AcceleratorError): CUDA error: "
)
_TRITON_FRAME = re.compile(r"^=+\s+at \S+ in \S+\.py:\d+", re.MULTILINE)  # a sanitizer frame in a Python file
_OTHER = re.compile(r"\btensorflow\b|\bpaddle\b", re.IGNORECASE)  # no framework-specific text for these
#: which frameworks a rule's evidence can come from, per evidence source it requires
SOURCE_FRAMEWORKS: dict[str, frozenset[str]] = {
    "triton": frozenset({"triton", "jax", "torch"}),  # Triton kernels, launched by hand, by Pallas or by Inductor
    "py": frozenset({"triton", "jax", "torch", "cupy", "numba"}),  # a Python traceback
    "numerics": frozenset({"triton", "jax", "torch", "cupy", "numba", "cuda"}),
}


def framework(context: Mapping[str, Any]) -> str | None:
    """The framework the failing code is written in, from the facts: JAX/Pallas, Triton, CuPy, Numba,
    PyTorch, or CUDA C++ (a compiler, sanitizer or CUDA error with no Python traceback); None when the
    input does not say."""
    text = str(context.get("log_text") or "")[:200_000]
    types = " ".join(str(t) for t in context.get("py_exc_types") or ())
    here = f"{types} {context.get('py_exc_qualname') or ''} {context.get('py_user_file') or ''}"
    if _JAX.search(here) or _JAX.search(text):
        return "jax"
    if context.get("triton_error") or context.get("triton_lines") or _TRITON.search(here) or _TRITON.search(text):
        return "triton"
    if _TRITON_FRAME.search(text):
        return "triton"
    if _CUPY.search(here) or _CUPY.search(text):
        return "cupy"
    if _NUMBA.search(here) or _NUMBA.search(text):
        return "numba"
    if _TORCH.search(here) or _TORCH.search(text):
        return "torch"
    if _OTHER.search(text):
        return None
    python = bool(context.get("py_exc_type")) or "Traceback (most recent call last)" in text
    native = context.get("compiler_tool") in ("nvcc", "ptxas", "nvrtc") or context.get("sanitizer_tool")
    if not python and (native or context.get("cuda_error")):
        return "cuda"
    return None


def frameworks_possible(requires: Iterable[str]) -> frozenset[str]:
    """The frameworks evidence with these sources can come from."""
    out = frozenset({"cuda", "triton", "torch", "jax", "cupy", "numba"})
    for src in requires:
        out &= SOURCE_FRAMEWORKS.get(src, out)
    return out


def template_symbols(rule: Any) -> list[str]:
    """The evidence symbols a rule's explanation references."""
    e = rule.explain
    out: list[str] = []
    for text in (e.what, e.why, e.fix, e.caveats or ""):
        for name, fmt in placeholders(text):
            out += (fmt or "").split("/") if name == "ratio" else [name]
    return [s for s in dict.fromkeys(out) if s]
