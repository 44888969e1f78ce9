"""The kernel's accumulator type, read from its source (never imported, never run).

A sum kept in float16 or bfloat16 loses the small terms of a long reduction; whether a kernel does
that is often plain in its source.  What is found:

- Triton (``@triton.jit`` functions, from the syntax tree): a ``tl.zeros`` / ``tl.full`` accumulator
  of ``dtype=tl.float16`` / ``tl.bfloat16`` (or ``"fp16"``...) updated inside a loop (``acc += ...``,
  ``acc = acc + ...``, ``acc = tl.dot(a, b, acc)``) and never widened before it; a
  ``tl.dot(..., out_dtype=tl.float16)`` inside a loop;
- CUDA C++ (the sources :mod:`diagnose.run.cuda_sources` reads, and ``.cu`` files): a ``half`` /
  ``__half`` / ``__nv_bfloat16`` variable declared before a ``for`` / ``while`` and updated inside it
  (``acc += ...``, ``acc = __hadd(acc, ...)``, ``acc = __hfma(a, b, acc)``).

A finding is a *candidate*, never a verdict: a narrow accumulator may be deliberate (and right for
short reductions).  Rules read it together with the numerical signature of a run
(``rules/numerics/numerics-run-narrow-accumulator.yaml``).

>>> src = '''
... import triton
... import triton.language as tl
... @triton.jit
... def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
...     acc = tl.zeros((BLOCK,), dtype=tl.float16)
...     for i in range(0, n, BLOCK):
...         acc += tl.load(x_ptr + i + tl.arange(0, BLOCK))
...     tl.store(out_ptr, tl.sum(acc))
... '''
>>> [(h.lang, h.dtype, h.var, h.line, h.update_line) for h in triton_accumulators(src)]
[('triton', 'float16', 'acc', 6, 8)]
>>> cu = '''__global__ void k(const __half* x, float* out, int n) {
...   __half acc = __float2half(0.f);
...   for (int i = 0; i < n; ++i) {
...     acc = __hadd(acc, x[i]);
...   }
...   out[0] = __half2float(acc);
... }'''
>>> [(h.lang, h.dtype, h.var, h.line, h.update_line) for h in cuda_accumulators(cu)]
[('cuda', 'float16', 'acc', 2, 4)]
>>> cuda_accumulators(cu.replace("__half acc", "float acc").replace("__hadd(acc, x[i])", "acc + __half2float(x[i])"))
[]
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from diagnose.run.triton_source import jit_functions, parse_source

NARROW = {
    "float16": "float16", "fp16": "float16", "half": "float16",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float8e4nv": "float8", "float8e5": "float8", "float8e4b15": "float8", "fp8e4nv": "float8", "fp8e5": "float8",
}  # fmt: skip
WIDE = frozenset({"float32", "fp32", "float64", "fp64", "tf32"})


@dataclass(frozen=True)
class Accumulator:
    lang: str  # triton | cuda
    dtype: str  # float16 | bfloat16 | float8
    var: str  # the accumulator's name
    line: int  # where it is declared (a line of the file read)
    update_line: int  # where the loop updates it
    how: str  # what was seen, in words
    code: str  # the declaration's line, stripped

    def describe(self) -> str:
        return f"{self.dtype} accumulator `{self.var}` (line {self.line}: {self.code[:80]}); {self.how}"


# --- Triton --------------------------------------------------------------------------------------


def _dtype_name(node: ast.expr | None) -> str | None:
    """``tl.float16`` / ``triton.language.bfloat16`` / ``"fp16"`` → its name; anything else None."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _call_attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _alloc_dtype(value: ast.expr) -> str | None:
    """The dtype of ``tl.zeros(..., dtype=D)`` / ``tl.full(..., dtype=D)`` (``D`` as written), else None."""
    at = {"zeros": 1, "full": 2}  # dtype's position: tl.zeros(shape, dtype), tl.full(shape, value, dtype)
    name = _call_attr(value)
    if name in ("zeros", "full", "zeros_like", "full_like") and isinstance(value, ast.Call):
        given = _kw(value, "dtype")
        if given is None and name in at and len(value.args) > at[name]:
            given = value.args[at[name]]
        return _dtype_name(given)
    return None


def _widened(value: ast.expr) -> bool:
    """``x.to(tl.float32)`` / ``tl.zeros(..., dtype=tl.float32)``: the name now holds a wide type."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "to":
        arg = value.args[0] if value.args else _kw(value, "dtype")
        return (_dtype_name(arg) or "") in WIDE
    return (_alloc_dtype(value) or "") in WIDE


def _updates(stmt: ast.stmt, var: str) -> bool:
    """Does ``stmt`` add into ``var`` (``var += e``, ``var = var + e``, ``var = tl.dot(a, b, var)``)?"""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == var:
        return isinstance(stmt.op, ast.Add | ast.Sub)
    if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == var for t in stmt.targets):
        v = stmt.value
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add | ast.Sub):
            return any(isinstance(s, ast.Name) and s.id == var for s in (v.left, v.right))
        if _call_attr(v) == "dot" and isinstance(v, ast.Call):
            acc = v.args[2] if len(v.args) > 2 else _kw(v, "acc")
            return isinstance(acc, ast.Name) and acc.id == var
    return False


def _loops(fn: ast.FunctionDef) -> Iterable[ast.For | ast.While]:
    return (n for n in ast.walk(fn) if isinstance(n, ast.For | ast.While))


def _triton_fn(fn: ast.FunctionDef, lines: list[str]) -> list[Accumulator]:
    """Narrow accumulators of one ``@triton.jit`` function (``lines``: the file's, for the quoted code)."""
    out: list[Accumulator] = []
    loops = list(_loops(fn))
    in_loop = {id(s) for loop in loops for s in ast.walk(loop) if isinstance(s, ast.stmt) and s is not loop}
    # narrow allocations outside every loop: name -> (dtype, line)
    narrow: dict[str, tuple[str, int]] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Assign) or id(node) in in_loop or len(node.targets) != 1:
            continue
        t = node.targets[0]
        if not isinstance(t, ast.Name):
            continue
        d = _alloc_dtype(node.value)
        if d is not None and d in NARROW:
            narrow[t.id] = (NARROW[d], node.lineno)
    for var, (dtype, line) in narrow.items():
        for loop in loops:
            upd = next((s for s in ast.walk(loop) if isinstance(s, ast.stmt) and _updates(s, var)), None)
            if upd is None or _widened_between(fn, var, line, upd.lineno):
                continue
            how = f"updated in a loop at line {upd.lineno} without being widened to float32"
            out.append(Accumulator("triton", dtype, var, line, upd.lineno, how, _code(lines, line)))
            break
    for loop in loops:
        for node in ast.walk(loop):
            if _call_attr(node) != "dot" or not isinstance(node, ast.Call):
                continue
            d = _dtype_name(_kw(node, "out_dtype")) or ""
            if d in NARROW:
                what = next((a.id for a in _assigned_to(loop, node)), "tl.dot")
                how = f"tl.dot(..., out_dtype={d}) inside a loop: every partial product sum is rounded to {NARROW[d]}"
                out.append(Accumulator("triton", NARROW[d], what, node.lineno, node.lineno, how,
                                       _code(lines, node.lineno)))  # fmt: skip
    return out


def _widened_between(fn: ast.FunctionDef, var: str, start: int, end: int) -> bool:
    """Is ``var`` rebound to a wide type (``var = var.to(tl.float32)``) after ``start`` and up to ``end``?"""
    return any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == var for t in n.targets)
        and _widened(n.value)
        and start < n.lineno <= end
        for n in ast.walk(fn)
    )


def _assigned_to(loop: ast.AST, call: ast.Call) -> list[ast.Name]:
    for s in ast.walk(loop):
        if isinstance(s, ast.Assign | ast.AugAssign) and any(n is call for n in ast.walk(s.value)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            return [t for t in targets if isinstance(t, ast.Name)]
    return []


def _code(lines: list[str], line: int) -> str:
    """The line, stripped, without a trailing comment (Python ``#``, C++ ``//``)."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    for mark in (" #", "\t#", "//"):
        cut = text.find(mark)
        if cut > 0 and text[:cut].count('"') % 2 == 0 and text[:cut].count("'") % 2 == 0:
            text = text[:cut]
    return text.strip()


def triton_accumulators(text: str) -> list[Accumulator]:
    """Narrow accumulators in the ``@triton.jit`` functions of a Python source (nothing when it does not parse)."""
    tree = parse_source(text)
    if tree is None:
        return []
    lines = text.splitlines()
    return [a for fn in jit_functions(tree) for a in _triton_fn(fn, lines)]


# --- CUDA C++ --------------------------------------------------------------------------------------

_CUDA_NARROW = {"half": "float16", "__half": "float16", "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16",
                "half2": "float16", "__half2": "float16", "__nv_bfloat162": "bfloat16"}  # fmt: skip
_DECL = re.compile(
    r"^\s*(?:const\s+)?(?P<type>__nv_bfloat162?|nv_bfloat16|__half2?|half2?)\s+(?P<var>[A-Za-z_]\w*)\s*(?:=[^;]*)?;"
)
_LOOP = re.compile(r"\b(?:for|while)\s*\(")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _strip_comments(text: str) -> str:
    """Comments blanked, line numbers kept."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _cuda_update(var: str) -> re.Pattern[str]:
    v = re.escape(var)
    return re.compile(
        rf"\b{v}\s*[+-]=|\b{v}\s*=\s*{v}\s*[+-]|\b{v}\s*=\s*__h(?:add|sub|fma)2?(?:_rn|_sat)?\s*\([^;]*\b{v}\b"
        # a float sum rounded back into the narrow variable every step: acc = __float2half(__half2float(acc) + x)
        rf"|\b{v}\s*=\s*__float2(?:half|bfloat16)2?(?:_rn)?\s*\([^;]*\b{v}\b[^;]*[+-]"
    )


def cuda_accumulators(text: str, *, line_offset: int = 0) -> list[Accumulator]:
    """Narrow accumulators in a CUDA C++ source: declared before a loop, updated inside it.

    ``line_offset`` is added to every line (a source that starts inside a larger file)."""
    lines = _strip_comments(text).splitlines()
    raw = text.splitlines()
    out: list[Accumulator] = []
    for i, line in enumerate(lines):
        m = _DECL.match(line)
        if not m:
            continue
        var, dtype = m.group("var"), _CUDA_NARROW[m.group("type")]
        upd = _cuda_update(var)
        depth, loop_at = 0, None
        # the declaration's scope: until its enclosing block closes
        for j in range(i + 1, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth < 0:
                break
            if loop_at is None and _LOOP.search(lines[j]):
                loop_at = j
            if loop_at is not None and upd.search(lines[j]):
                how = f"{m.group('type')} updated in a loop at line {j + 1 + line_offset}"
                out.append(Accumulator("cuda", dtype, var, i + 1 + line_offset, j + 1 + line_offset, how,
                                       _code(raw, i + 1)))  # fmt: skip
                break
    return out


# --- a target --------------------------------------------------------------------------------------


def _source_offset(text: str, body: str) -> int | None:
    """The line of ``text`` where ``body``'s first non-empty line is (0-based offset), None if not found."""
    first = next((ln for ln in body.splitlines() if ln.strip()), None)
    if first is None:
        return None
    for i, ln in enumerate(text.splitlines()):
        if ln.strip() == first.strip():
            return i
    return None


def scan(path: Path) -> list[Accumulator]:
    """Narrow accumulators in a target file: its Triton kernels and its CUDA sources (inline or ``.cu``)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if path.suffix in (".cu", ".cuh"):
        return cuda_accumulators(text)
    out = triton_accumulators(text)
    from diagnose.run import cuda_sources as S

    try:
        found = S.extract(path)
    except Exception:  # an unreadable submission is reported elsewhere; this check just finds nothing
        return out
    for src in found.sources:
        if src.lang != "cuda":
            continue
        body = src.text[len(S.LOAD_INLINE_CUDA_PREFIX) :] if src.api == "load_inline" else src.text
        start = _source_offset(text, body) if src.api != "load" else None
        for acc in cuda_accumulators(body):
            if start is not None:  # a line of the submission, where the string sits
                first = next(i for i, ln in enumerate(body.splitlines()) if ln.strip())
                shift = start - first
                acc = Accumulator(acc.lang, acc.dtype, acc.var, acc.line + shift, acc.update_line + shift,
                                  acc.how.replace(f"line {acc.update_line}", f"line {acc.update_line + shift}"),
                                  acc.code)  # fmt: skip
            else:
                acc = Accumulator(acc.lang, acc.dtype, acc.var, acc.line, acc.update_line,
                                  f"{acc.how} of {src.origin}", acc.code)  # fmt: skip
            out.append(acc)
    return out
