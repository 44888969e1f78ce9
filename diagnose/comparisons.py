"""Printed comparisons whose two sides differ, told apart from prints of two equal values.

Test programs and harnesses print a failed check without an error keyword: the reference value beside
the device's (llm.c's ``Mismatch of dbias at 0: CPU_ref: 1.125032 vs GPU: 3.562500``, a SciPy result
over CuPy's on the next line), or, in an interactive session, a call on an all-zero array whose
printed result is not all zeros.  :func:`comparison_lines` finds those lines: two labelled values, one
labelled as the reference (``cpu``, ``host``, ``ref``, ``expected``, ``golden``, ``numpy``, ``scipy``,
``torch``) and one as the device's (``gpu``, ``device``, ``cuda``, ``cupy``, ``kernel``, ``triton``,
``out``, ``result``, ``actual``), that really differ: numbers beyond a relative tolerance of 1%,
arrays element by element; whole numbers count as values only beside ``expected`` / ``observed`` /
``actual`` (``observed=3, expected=2``; numpy's ``ACTUAL: 3`` / ``DESIRED: 2``) or, five digits or more (no
version is), beside a framework's name (``numpy : 99990000`` / ``cupy : 100026222``), two whole numbers
differ when they are not equal (integer results are exact on every device), and a generic word
yields to a named path (``output_liger`` against ``output_torch``).  Equal values, timings and other
measurements (``CPU time: 12 ms vs GPU time: 1 ms``), counts and versions stay healthy.
:func:`path_comparison_lines` finds one call printed compiled (``jax.jit(f)(x)``) and as it is with
different results, :func:`variant_comparison_lines` one expression typed for a value and for a variant of it
(``logprobs`` / ``logprobs_fused``) with different results, :func:`device_comparison_lines` one expression typed for
the GPU and for the CPU with different results, :func:`rust_assert_eq_lines` a Rust ``assert_eq!`` of two numbers
that differ, :func:`flagged_row_lines` a printed row the program marks (``*****``, ``<-- mismatch``),
:func:`marked_cell_lines` a results table's cell marked failed beside its value (``XX 0.979`` among ``ok 1.000``
cells, ``8160 ✗``) and :func:`below_floor_lines` a table row whose value is beyond the row's own ``floor`` column.  :func:`zero_input_results` finds the other shape
and the element count of the input where the call states it (``zeros((2**31+1,), ...)``).

>>> [n for n, _ in comparison_lines("Mismatch of dbias at 0: CPU_ref: 1.125032 vs GPU: 3.562500")]
[1]
>>> comparison_lines("CPU_ref: 1.125032 vs GPU: 1.125000\\nCPU time: 12.1 ms, GPU time: 1.3 ms")
[]
>>> [n for n, _ in comparison_lines("taps=[3, 2]: scipy=[1, 1, 1, 1]\\n   cupy=[1, 1, 1, 0]")]
[1]
>>> zero_input_results(">>> cp.concatenate([cp.zeros((2**31+1,), dtype='b')])\\narray([0, 0, ..., 0, 1], dtype=int8)")
[(2, 'array([0, 0, ..., 0, 1], dtype=int8)', 2147483649, 1)]
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any

#: label words of the trusted side and of the side under test
_REF_WORDS = frozenset(
    {
        *("cpu", "host", "ref", "reference", "expected", "expect", "golden", "truth", "numpy", "np", "scipy"),
        *("torch", "eager", "baseline", "desired"),
        # a puzzle's or exercise's checker: "Yours: [28. 88.]" over "Spec : [28. 77.]" (srush/GPU-Puzzles)
        *("spec", "specification"),
        # Accelerate's reference backend (Data.Array.Accelerate.Interpreter), printed beside its CUDA/LLVM backends
        "interpreter",
    }
)
_DEV_WORDS = frozenset(
    {
        *("gpu", "device", "dev", "cuda", "cupy", "cp", "kernel", "triton", "out", "output", "result", "actual"),
        *("got", "observed", "computed", "jit", "jitted", "compiled", "liger", "fused", "yours"),
    }
)
#: words that only say "a value" and yield to a word naming the side (``output_torch``: the torch side)
_GENERIC_DEV = frozenset({"out", "output", "result", "actual", "got"})
#: labels whose whole numbers are computed values (``observed=3, expected=2``), not ids or counts
_VALUE_WORDS = frozenset({"expected", "expect", "desired", "observed", "computed", "actual", "got"})
#: framework names: a print of their names with numbers is as often a version list as a comparison
_FRAMEWORKS = frozenset({"numpy", "np", "scipy", "torch", "cuda", "cupy", "cp", "triton"})
#: words that make a labelled number a measurement or a property, not a computed value
_MEASURES = frozenset(
    {
        *("time", "times", "elapsed", "latency", "ms", "us", "ns", "sec", "secs", "seconds", "speed", "speedup"),
        *("throughput", "bandwidth", "flops", "gflops", "tflops", "memory", "mem", "usage", "util", "utilization"),
        *("count", "cores", "threads", "devices", "num", "number", "version", "ver", "temp", "temperature", "power"),
        *("clock", "freq", "frequency", "id", "rank", "size", "batch", "shape", "dim", "dims", "len", "length"),
        *("blocks", "grid", "warps", "regs", "registers"),
    }
)
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])|[-+]?(?:nan|inf|NaN|Inf)\b"
#: a label (up to three words) then ``:`` or ``=``, then a number or a bracketed array on the same line
#: ``:`` or ``=`` then a number or a bracketed array on the same line; the label is the words before it
#: (Accelerate shows an array as ``Array (<shape>) [<elements>]``: Data/Array/Accelerate/Array/Sugar.hs)
_VALUE = re.compile(
    r"[ \t]*[:=][ \t]*(?P<value>(?:array|tensor)?\(?\[[^\[\]\n]*\]|Array \([^()\n]*\) \[[^\[\]\n]*\]|" + _NUMBER + r")"
    r"(?P<unit>[ \t]*(?:ms|us|µs|ns|s|sec|seconds|[KMGT]i?B(?:/s)?|%|x|X|GFLOPS|TFLOPS)\b)?"
)
_WORD = re.compile(r"[A-Za-z][\w.]*")
#: a line names one of the two sides somewhere (a quick test before the values are read)
_ANY_SIDE = re.compile(
    r"(?i:(?<![a-z])(?:" + "|".join(sorted(_REF_WORDS | _DEV_WORDS, key=len, reverse=True)) + r")(?![a-z]))"
)
_ELEMENT = re.compile(_NUMBER + r"|\.\.\.|…|\bTrue\b|\bFalse\b")
_BOOLEANS = {"True": 1.0, "False": 0.0}
RTOL = 1e-2
_WHOLE = re.compile(r"[-+]?\d+")
#: a whole number beside a framework's name that no version or device number is: five digits or more
#: (NumPy's and CuPy's sums of the same integer array, "numpy : 99990000" / "cupy : 100026222")
_COMPUTED_WHOLE = re.compile(r"[-+]?\d{5,}")
#: ... or a number no version is: negative, in exponent notation, or with four decimals or more (OpenMM's energies
#: printed per platform, "CPU: -3156.85350967" over "CUDA: -213.760077752")
_COMPUTED_REAL = re.compile(r"^-\d|\d[eE][-+]?\d|\.\d{4,}")
ATOL = 1e-6


def _side(label: str) -> str | None:
    """``ref`` or ``dev`` for a label of one side only; None for any other label (or a measurement)."""
    words = {w for w in re.split(r"[\W_]+", label.lower()) if w}
    if not words or words & _MEASURES:
        return None
    ref, dev = bool(words & _REF_WORDS), bool(words & _DEV_WORDS)
    if ref and dev:  # "CPU_out", "ref_result", "output_torch": the word that says which side wins over the generic one
        ref = bool(
            words & {"cpu", "host", "ref", "reference", "expected", "desired", "golden", "numpy", "np", "scipy"}
        ) or not (words & _DEV_WORDS - _GENERIC_DEV)
        dev = not ref
    return "ref" if ref else "dev" if dev else None


def _numbers(value: str) -> tuple[list[float], list[float]] | None:
    """The elements of a printed value: (head, tail) around an elision (``[0, 0, ..., 0, 1]``)."""
    body = value
    if "[" in value:
        body = value[value.index("[") + 1 : value.rindex("]")]
    head: list[float] = []
    tail: list[float] = []
    part = head
    for m in _ELEMENT.finditer(body):
        if m.group(0) in ("...", "…"):
            part = tail
            continue
        word = m.group(0)
        try:
            part.append(_BOOLEANS[word] if word in _BOOLEANS else float(word))
        except ValueError:
            return None
    return (head, tail) if head or tail else None


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= ATOL + RTOL * max(abs(a), abs(b))


def values_differ(a: str, b: str) -> bool:
    """Two printed values (numbers or arrays) differ: element by element over the parts both show; two
    whole numbers (integer results, exact on every device) differ when they are not equal.

    >>> values_differ("99990000", "100026222"), values_differ("1.0", "1.001")
    (True, False)
    """
    if _WHOLE.fullmatch(a) and _WHOLE.fullmatch(b):
        return int(a) != int(b)
    x, y = _numbers(a), _numbers(b)
    if x is None or y is None:
        return False
    (xh, xt), (yh, yt) = x, y
    if not xt and not yt and len(xh) != len(yh) and "[" in a and "[" in b:
        return True  # two whole arrays of different lengths
    pairs = list(zip(xh, yh, strict=False)) + list(zip(reversed(xt or xh), reversed(yt or yh), strict=False))
    if _integer_elements(a) and _integer_elements(b):
        return any(p != q for p, q in pairs)  # integer arrays, exact like whole numbers
    return any(not _close(p, q) for p, q in pairs)


def _integer_elements(value: str) -> bool:
    """A printed array whose every element is a whole number (``[129]``, ``[1, 2, 3]``), not a float's print."""
    if "[" not in value:
        return False
    body = value[value.index("[") + 1 : value.rindex("]")]
    elements = [e for e in _ELEMENT.findall(body) if e not in ("...", "…")]
    return bool(elements) and all(_WHOLE.fullmatch(e) for e in elements)


#: the word between two sides a label names, whose value is their difference (OpenMM's testInstallation:
#: "Reference vs. CUDA: 2.1868e-05"); a "vs" that follows a value ("CPU_ref: 1.12 vs GPU: 3.56") separates two values
_BETWEEN = re.compile(r"(?i)vs\.?|versus")


def _labelled(line: str) -> list[tuple[str, str, int, int]]:
    """(side, value, start, end) of each labelled value of one side on a line (measurements left out)."""
    out = []
    for m in _VALUE.finditer(line):
        if m["unit"]:
            continue
        prefix = line[max(0, m.start() - 80) : m.start()]
        if not prefix.strip():
            continue
        run: list[str] = []
        for word in reversed(prefix.split()[-3:]):
            if not _WORD.fullmatch(word):
                break
            run.append(word)
        if not run or not prefix.rstrip().endswith(run[0]):
            continue
        label = " ".join(reversed(run))
        if any(_BETWEEN.fullmatch(w) for w in label.split()[1:-1]):
            continue  # "Reference vs. CUDA: 2.2e-05": the difference between two sides, not one side's value
        side = _side(label)
        if side is None:
            continue
        if "[" not in m["value"]:
            if set(re.split(r"[\W_]+", label.lower())) <= _FRAMEWORKS | {""}:
                if not _COMPUTED_WHOLE.fullmatch(m["value"]) and not _COMPUTED_REAL.search(m["value"]):
                    continue  # "torch: 2.1, cuda: 12.1" is a version list
            elif not re.search(r"[.eEnN]", m["value"]) and not set(label.lower().split()) & _VALUE_WORDS:
                continue  # whole numbers beside "host" and "device" are ids and counts, not computed values
        out.append((side, m["value"], m.start() - len(prefix) + prefix.rfind(run[-1]), m.end()))
    return out


def _pair_differs(a: tuple[str, str, int, int], b: tuple[str, str, int, int]) -> bool:
    return a[0] != b[0] and ("[" in a[1]) == ("[" in b[1]) and values_differ(a[1], b[1])


def _side_lines(text: str) -> list[int]:
    """Indices (from 0) of the lines that hold a side's word, found in one pass over the lowered text."""
    return _lines_holding(text, _side_words())


@functools.cache
def _side_words() -> Any:
    return _words_automaton(_REF_WORDS | _DEV_WORDS)


def _words_automaton(words: Iterable[str]) -> Any:
    """An automaton (pyahocorasick) of ``words``, each mapped to its length."""
    import ahocorasick

    auto = ahocorasick.Automaton()
    for word in words:
        auto.add_word(word, len(word))
    auto.make_automaton()
    return auto


def _lines_holding(text: str, words: Any) -> list[int]:
    """Indices (from 0) of the lines of ``text`` whose lowered text holds one of the automaton's words
    (no word holds a newline).  The words end in the order the automaton reports them, so a line is
    the one before's or a later one."""
    lower = text.lower()
    starts: list[int] = []
    line_end = -1
    for end, size in words.iter(lower):
        if end > line_end:
            starts.append(lower.rfind("\n", max(line_end, 0), end - size + 1) + 1)
            line_end = lower.find("\n", end)
            if line_end < 0:
                line_end = len(lower)
    # each line's index: the newlines before its start, counted on from the line before's
    out: list[int] = []
    index = done = 0
    for start in starts:
        index += text.count("\n", done, start)
        done = start
        out.append(index)
    return out


def comparison_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """Lines that print a reference value and a device value that differ: (line number from 1, the line
    stripped); a comparison printed over two lines is reported at its first line."""
    out: list[tuple[int, str]] = []
    candidates = _side_lines(text)
    if not candidates:
        return out
    lines = text.split("\n")
    previous: list[tuple[str, str, int, int]] = []
    last = -2
    for i in candidates:
        if i >= len(lines):
            break
        line = lines[i]
        if i != last + 1:
            previous = []
        last = i
        if len(line) > 2000 or ("=" not in line and ":" not in line) or not _ANY_SIDE.search(line):
            previous = []
            continue
        here = _labelled(line)
        hit = any(_pair_differs(a, b) for k, a in enumerate(here) for b in here[k + 1 :])
        if not hit and previous and here and here[0][2] <= len(line) - len(line.lstrip()):
            # the other side on the next line, at its start: "scipy=[...]" / "   cupy=[...]"
            if _pair_differs(previous[-1], here[0]):
                out.append((i, lines[i - 1].strip()))
        elif hit:
            out.append((i + 1, line.strip()))
        if len(out) >= limit:
            break
        previous = here
    return out


_BLOCK_LABEL = re.compile(r"^\s*(?P<label>(?:[A-Za-z][\w.]*[ \t]+){0,2}[A-Za-z][\w.]*)[ \t]*[:=]?[ \t]*$")
#: a label line without its colon that can only head a value: "Expected Result" over one block, "Actual Result" over
#: the other (a reproducer's own printout)
_BARE_VALUE_LABEL = re.compile(
    r"(?i)^\s*(?:expected|actual|desired|observed|computed|reference)"
    r"(?:[ \t]+(?:results?|outputs?|values?|answers?))?[ \t]*$"
)


def block_comparison_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """A reference and a device value printed as blocks under their own label lines (``Result:`` then a
    tensor, ``Expected:`` then another), that differ: the line of the first label.

    >>> block_comparison_lines("python a.py\\nExpected Result\\n[2,3]\\nActual Result\\n[1,2]\\n")
    [(2, 'Expected Result')]
    >>> block_comparison_lines("Expected Result\\n[2,3]\\nActual Result\\n[2,3]\\n")
    []
    """
    if text.count("\n") < 3 or "[" not in text:  # (a value is a block of lines that holds a "[")
        return []
    lines = text.split("\n")
    blocks: list[tuple[int, str, str]] = []  # (label line number, side, value text)
    i = 0
    while i < len(lines):
        line = lines[i]
        # a label line ends in a colon: the cheaper test first
        m = (
            _BLOCK_LABEL.match(line)
            if len(line) <= 200 and (line.rstrip().endswith(":") or _BARE_VALUE_LABEL.match(line))
            else None
        )
        side = _side(m["label"]) if m else None
        if side is None:
            i += 1
            continue
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() and not _BLOCK_LABEL.match(lines[j]) and len(body) < 200:
            body.append(lines[j])
            j += 1
        value = " ".join(body)
        if "[" in value and "]" in value:
            blocks.append((i + 1, side, value))
        i = j
    out: list[tuple[int, str]] = []
    for (n, a_side, a), (_, b_side, b) in itertools.pairwise(blocks):
        if a_side != b_side and values_differ(a, b):
            out.append((n, lines[n - 1].strip()))
            if len(out) >= limit:
                break
    return out


# --- an all-zero input whose printed result is not all zeros ---------------------------------

#: calls whose result is all zeros when every input element is zero (the input's elements moved,
#: reduced or multiplied, never added to a constant)
_ZERO_PRESERVING = (
    r"concatenate|concat|cat|stack|hstack|vstack|column_stack|cumsum|nancumsum|cumprod|sum|nansum|prod|max|min"
    r"|amax|amin|abs|absolute|copy|clone|contiguous|reshape|ravel|flatten|transpose|flip|roll|sort|take|repeat"
    r"|tile|matmul|dot|mm|bmm|einsum|multiply|mul|square|sqrt|asnumpy|get|cuda|cpu|to"
)
_ZERO_CALL = re.compile(
    rf"\b(?:{_ZERO_PRESERVING})\((?=[^\n]*\bzeros(?:_like)?\()|\bzeros(?:_like)?\([^\n]*\)\.(?:{_ZERO_PRESERVING})\("
)
#: anything that makes the input or the result other than the zeros themselves (once the size and the
#: keyword arguments of the call are set aside)
_NOT_ZERO_ONLY = re.compile(
    r"\b(?:ones|full|arange|rand\w*|eye|identity|linspace|fill\w*|exp\w*|cos\w*|log\w*|add|where|logical_\w+"
    r"|isclose|equal|argmax|argmin|nonzero|count_nonzero|shape|size|dtype)\b|[+\-*/%<>!=~^|&]"
)
_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.|In \[\d+\]:)\s?")
_ZEROS_SIZE = re.compile(r"\bzeros\(\s*(?P<size>\((?:[^()]|\([^()]*\))*\)|[^,()\n]+(?:\([^()]*\)[^,()\n]*)*)")
_KWARG = re.compile(r"\b\w+\s*=\s*(?:'[^']*'|\"[^\"]*\"|[\w.]+)")
_ASSIGNED = re.compile(r"^\s*[A-Za-z_][\w.\[\], ]*=(?!=)")


def _element_count(line: str) -> int | None:
    """The element count a ``zeros(...)`` call on ``line`` states, when it is integer arithmetic."""
    from diagnose.collectors.families import _size_value

    m = _ZEROS_SIZE.search(line)
    got = _size_value(m["size"]) if m else None
    return int(got) if got is not None else None


def _nonzero(value: str) -> bool:
    parts = _numbers(value)
    return parts is not None and any(v != 0 for v in parts[0] + parts[1])


_RESULT = re.compile(r"^\s*(?:(?:array|tensor)\()?(?:\[[^\n]*\]|" + _NUMBER + r")")
_STATED = re.compile(r"\):\s*(?P<value>" + _NUMBER + r"|\[[^\[\]\n]*\])\s*$")


def zero_input_results(text: str, limit: int = 3) -> list[tuple[int, str, int | None, int]]:
    """Results of a call on an all-zero array that hold a non-zero element: (line number, the line
    stripped, the input's element count when the call states it, the line number of the call).  The result is the line after the
    call in an interactive session, or the value a line prints after the call and a colon
    (``max of cumsum(torch.zeros(...)): 1.000000``)."""
    if "zeros" not in text:
        return []
    out: list[tuple[int, str, int | None, int]] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if len(line) > 2000 or "zeros" not in line or not _ZERO_CALL.search(line):
            continue
        code = _PROMPT.sub("", line)
        stated = _STATED.search(code)
        expr = code[: stated.start() + 1] if stated else code
        bare = _KWARG.sub("", _ZEROS_SIZE.sub("zeros(n", expr))
        if _ASSIGNED.match(expr) or _NOT_ZERO_ONLY.search(bare):
            continue
        if stated:
            if _nonzero(stated["value"]):
                out.append((i + 1, line.strip(), _element_count(expr), i + 1))
        elif i + 1 < len(lines) and _PROMPT.match(line) and not _PROMPT.match(lines[i + 1]):
            result = lines[i + 1]
            if _RESULT.match(result) and _nonzero(result.split("dtype=")[0].split("device=")[0]):
                out.append((i + 2, result.strip(), _element_count(expr), i + 1))
        if len(out) >= limit:
            break
    return out


# --- a measured difference printed beside the tolerance it had to meet ------------------------

_OVER_TOLERANCE = re.compile(
    r"(?i:\b(?:max(?:imum)?|mean|avg|average|greatest|largest)?[\s_]*(?:abs(?:olute)?|rel(?:ative)?)?[\s_.]*"
    r"(?:diff(?:erence)?|err(?:or)?|delta)\b[^\n\d]{0,20}?[:=]?\s*(?P<value>" + _NUMBER + r")"
    r"[^\n]{0,40}?\b(?:tol(?:erance)?|atol|rtol|threshold|allowed|eps(?:ilon)?)\b\s*(?:of\s+)?[:=]?\s*"
    r"(?P<limit>" + _NUMBER + r"))"
)


_BOUND_WORD = re.compile(r"(?i:tol|threshold|allowed|eps)")


@functools.cache
def _bound_words() -> Any:
    return _words_automaton(("tol", "threshold", "allowed", "eps"))


def over_tolerance_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """Lines that print a measured difference above the tolerance they print beside it
    (``max abs diff: 0.51 (tol 1e-3)``); a difference within it is a pass."""
    out: list[tuple[int, str]] = []
    if text.isascii():  # the lines _BOUND_WORD finds: those whose lowered text holds one of its words
        numbered = _lines_holding(text, _bound_words())
        if not numbered:
            return out
        lines = text.split("\n")
    elif _BOUND_WORD.search(text):  # case folding beyond ASCII: the regex on every line
        lines = text.split("\n")
        numbered = [i for i, line in enumerate(lines) if _BOUND_WORD.search(line)]
    else:
        return out
    for i in numbered:
        n, line = i + 1, lines[i]
        if len(line) > 2000:
            continue
        for m in _OVER_TOLERANCE.finditer(line):
            value, bound = float(m["value"]), float(m["limit"])
            if math.isnan(value) or abs(value) > abs(bound):
                out.append((n, line.strip()))
                break
        if len(out) >= limit:
            break
    return out


# --- one computation printed through two execution paths -----------------------------------

#: a wrapper that compiles a function: ``jax.jit(f)``, ``torch.compile(f)``, ``numba.njit(f)``,
#: ``tf.function(f)``, with its keyword arguments
_WRAPPER = re.compile(
    r"\b(?:[A-Za-z_]\w*\.)*(?:jit|njit|compile|function|vmap_jit)\(\s*(?P<fn>[A-Za-z_][\w.]*)\s*(?:,[^()]*)?\)"
)
#: a printed call with its result in a comment (``print(f(x))  # [True True]``), or an interactive call
_COMMENTED = re.compile(
    r"^\s*(?:>>>\s*)?(?:print\((?P<printed>.+)\)|(?P<bare>[A-Za-z_][\w.]*\(.+\)))\s*#\s*(?P<value>.+?)\s*$"
)
#: a line that is only a comment holding a printed result (``# False``, ``# [1 2 3]``)
_COMMENT_ONLY = re.compile(r"^#\s*(?:(?:array|tensor|Array)\()?[\[(]?\s*(?:" + _NUMBER + r"|True\b|False\b)")
_RESULT_VALUE = re.compile(r"^(?:(?:array|tensor|Array)\()?[\[(]?\s*(?:" + _NUMBER + r"|True\b|False\b)")


def path_comparison_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """A call printed twice, once through a compiler (``jax.jit(f)(x)``, ``torch.compile(f)(x)``) and once
    as it is (``f(x)``), with results that differ: the compiled call's line.  The two paths of one
    computation must agree; equal results stay healthy.

    >>> path_comparison_lines("print(f(x))  # [True True]\\nprint(jax.jit(f)(x))  # [False False]")
    [(2, 'print(jax.jit(f)(x))  # [False False]')]
    >>> path_comparison_lines("print(f(x))  # [1. 2.]\\nprint(jax.jit(f)(x))  # [1. 2.]")
    []

    The result may stand in a comment of its own on the next line, as reproductions in reports write it:

    >>> path_comparison_lines("print(f(x))\\n# False\\nprint(jax.jit(f)(x))\\n# True")
    [(3, 'print(jax.jit(f)(x))')]
    """
    return [(n, shown) for n, shown, _, _ in path_comparison_results(text, limit)]


def _exact(value: str) -> bool:
    """A printed result whose every element is a truth value or a whole number (``True``, ``[1 0 3]``): no
    rounding explains a difference between two such results."""
    elements = [e for e in _ELEMENT.findall(value) if e not in ("...", "…")]
    return bool(elements) and all(e in ("True", "False") or _WHOLE.fullmatch(e) for e in elements)


def path_comparison_results(text: str, limit: int = 3) -> list[tuple[int, str, str, bool]]:
    """The compiled calls :func:`path_comparison_lines` finds, each with the wrapper that compiled it
    (``jax.jit``, ``torch.compile``, ``jit`` when it is called bare) and whether both results are exact
    (truth values or whole numbers, which no reordering of floating-point operations changes).

    >>> path_comparison_results("print(f(x))  # [True True]\\nprint(jax.jit(f)(x))  # [False False]")
    [(2, 'print(jax.jit(f)(x))  # [False False]', 'jax.jit', True)]
    >>> path_comparison_results("print(f(x))  # 1.5\\nprint(torch.compile(f)(x))  # 3.25")
    [(2, 'print(torch.compile(f)(x))  # 3.25', 'torch.compile', False)]
    """
    if "(" not in text or "#" not in text:
        return []
    calls: dict[str, list[tuple[str | None, str, int, str]]] = {}
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if len(line) > 500:
            continue
        shown = line.strip()
        if "#" not in line:
            # ``print(f(x))`` with its result alone in a comment on the next line (``# False``)
            following = lines[n].strip() if n < len(lines) else ""
            if not following.startswith("#") or _COMMENT_ONLY.match(following) is None:
                continue
            line = f"{line.rstrip()} {following}"
        m = _COMMENTED.match(line)
        if not m or not _RESULT_VALUE.match(m["value"]):
            continue
        expr = re.sub(r"\s+", "", m["printed"] or m["bare"])
        wrapper = _WRAPPER.search(expr)
        plain = _WRAPPER.sub(lambda w: w["fn"], expr)
        name = wrapper[0][: wrapper[0].index("(")] if wrapper else None
        calls.setdefault(plain, []).append((name, m["value"], n, shown))
    out: list[tuple[int, str, str, bool]] = []
    for seen in calls.values():
        plain_runs = [c for c in seen if c[0] is None]
        for name, value, n, shown in seen:
            if name is None:
                continue
            differing = [p for p in plain_runs if values_differ(value, p[1])]
            if differing:
                exact = _exact(value) and all(_exact(p[1]) for p in differing)
                out.append((n, shown, name, exact))
    return sorted(out)[:limit]


# --- one expression evaluated on a value and on a variant of it, with different results ----------

#: an interactive prompt and the expression typed at it (Python's ``>>>``, IPython's ``In [3]:``, pdb's
#: ``(Pdb)``, Julia's ``julia>``, a debugger's or a quoted session's bare ``>``)
_TYPED_PROMPT = r"^\s*(?:>>>|>|In \[\d+\]:|\(Pdb\)|ipdb>|julia>)\s+"
_TYPED_AT = re.compile(_TYPED_PROMPT + r"(?P<expr>\S.*?)\s*$")
#: a prompt anywhere in a text: one scan before a detector reads its lines one by one
_ANY_PROMPT = re.compile(_TYPED_PROMPT + r"\S", re.MULTILINE)
_IDENT = re.compile(r"[A-Za-z_]\w*")
#: expressions with a result read from one session at most (they are compared pairwise)
_MAX_TYPED = 200
#: what a printed tensor or array carries beside its values (``device='cuda:0'``, ``dtype=torch.float32``)
_VALUE_ATTRS = re.compile(r"\b(?:device|dtype|grad_fn|requires_grad|shape)=(?:'[^']*'|<[^>]*>|[\w.]+)")


def _variant(a: str, b: str) -> bool:
    """``b`` names a variant of ``a``: the same name with a word added (``logprobs`` / ``logprobs_fused``,
    ``out`` / ``ref_out``)."""
    return a != b and (b.startswith(a + "_") or b.endswith("_" + a))


def _variant_pair(a: list[str], b: list[str]) -> bool:
    """Two token lists that differ only where a name of ``a`` stands as one variant of it in ``b`` (or the
    other way round), the same name at every such place."""
    if len(a) != len(b):
        return False
    swaps = {(x, y) for x, y in zip(a, b, strict=True) if x != y}
    if len(swaps) != 1:
        return False
    ((x, y),) = swaps
    return _IDENT.fullmatch(x) is not None and (_variant(x, y) or _variant(y, x))


def variant_comparison_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """One expression typed in an interactive session for a value and again for a variant of it (the same
    name with a word added: a second implementation of one quantity), each followed by its printed result,
    and the results differ beyond the comparison tolerance: the two result lines.  Two paths of one
    quantity must agree; equal results stay healthy, and so do two different names.

    >>> variant_comparison_lines(">>> out.max()\\ntensor(3.5)\\n>>> out_fused.max()\\ntensor(124.)")
    [(2, 'tensor(3.5)'), (4, 'tensor(124.)')]
    >>> variant_comparison_lines(">>> out.max()\\ntensor(3.5)\\n>>> out_fused.max()\\ntensor(3.5)")
    []
    >>> variant_comparison_lines(">>> a.max()\\ntensor(3.5)\\n>>> b.max()\\ntensor(124.)")
    []
    """
    if ">" not in text and "In [" not in text:
        return []
    lines = text.split("\n")
    typed: list[tuple[list[str], str, int, str]] = []  # (tokens, result, result's line number, result line)
    for n, line in enumerate(lines):
        if len(line) > 500:
            continue
        m = _TYPED_AT.match(line)
        if not m or n + 1 >= len(lines) or _TYPED_AT.match(lines[n + 1]):
            continue
        result = lines[n + 1].strip()
        if not result or _ELEMENT.search(result) is None:
            continue
        tokens = re.findall(r"[A-Za-z_]\w*|\S", m["expr"])
        typed.append((tokens, _VALUE_ATTRS.sub("", result), n + 2, result))
        if len(typed) >= _MAX_TYPED:
            break
    out: list[tuple[int, str]] = []
    for i, (tokens, result, first, first_shown) in enumerate(typed):
        for other, other_result, number, shown in typed[i + 1 :]:
            if _variant_pair(tokens, other) and values_differ(result, other_result):
                out += [(first, first_shown), (number, shown)]
    return sorted(set(out))[:limit]


# --- one expression evaluated on the GPU and on the CPU, with different results -------------------

#: a line that only names the device the next lines ran on ("# GPU", "CPU:", "-- on the GPU --")
_DEVICE_HEADER = re.compile(r"(?i)^\s*(?:#+|//|--)?\s*(?:on\s+(?:the\s+)?)?(?P<device>gpu|cuda|cpu)\s*:?\s*(?:--)?\s*$")
#: what moves a value to a device in an expression: a wrapper call, a method, a keyword (PyTorch's ``.cuda()`` /
#: ``.to("cuda")``, Julia's ``gpu(x)`` / ``cu(x)``, JAX's ``device_put``, ``device="cuda"``)
_TO_GPU = re.compile(
    r"""(?i)\b(?:gpu|cu|cuda)\s*\(|\.(?:cuda|gpu)\(\)|\.to\(\s*['"]cuda|device\s*=\s*['"]?(?:cuda|gpu)"""
)
_TO_CPU = re.compile(r"""(?i)\bcpu\s*\(|\.cpu\(\)|\.to\(\s*['"]cpu|device\s*=\s*['"]?cpu""")
_DEVICE_WORDS = re.compile(
    r"""(?i)\.(?:cuda|cpu|gpu)\(\)|\.to\(\s*['"](?:cuda|cpu)[^'"]*['"]\s*\)|,?\s*device\s*=\s*['"]?[\w:]+['"]?"""
    r"|\b(?:gpu|cu|cuda|cpu)\b|[\s()]"
)
#: expressions whose value differs between devices by design: random draws (each device has its own generator;
#: not a counter-based draw from an explicit key, as JAX's, which is the same on every device), timings, memory and
#: device queries
_DEVICE_DEPENDENT = re.compile(
    r"(?i)\b(?:rand\w*|normal|uniform|random\w*|shuffle|dropout|permutation|multinomial|time\w*|perf_counter"
    r"|elapsed\w*|benchmark\w*|memory\w*|mem_get_info|max_memory\w*|get_device\w*|device_count|current_device"
    r"|get_arch_list|version|id|hash)\b"
)
_KEYED_DRAW = re.compile(r"(?i)\b(?:rng_?key|prng_?key|key)\b")
#: a result's first line that only states its type ("32×1 CuArray{Float32, 2, ...}:"): its numbers are no values
_TYPE_LINE = re.compile(r"^\s*\S[^\n]*:\s*$")


def _devices_differ(a: str, b: str) -> bool:
    """Two statements' devices differ: GPU against CPU, or an explicit GPU against the plain form of the same
    expression."""
    return {a, b} in ({"gpu", "cpu"}, {"gpu", "plain"})


def device_comparison_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    r"""One expression typed in an interactive session for the GPU and again for the CPU (a device wrapper or
    method added, ``gpu(layer)(gpu(x))`` against ``layer(x)``, or the same line under a ``# GPU`` and a ``# CPU``
    header), each followed by its printed result, and the results differ: the two result lines.  The same
    computation must agree across devices; equal results stay healthy, and so do two different expressions.

    >>> device_comparison_lines("# GPU\n> f(x)\nArray(2147483647, dtype=int32)\n# CPU\n> f(x)\nArray(1, dtype=int32)")
    [(3, 'Array(2147483647, dtype=int32)'), (6, 'Array(1, dtype=int32)')]
    >>> device_comparison_lines("julia> m(x)\n2-element Vector{Float32}:\n NaN\n NaN\njulia> gpu(m)(gpu(x))\n2-element CuArray{Float32, 1}:\n 0.0\n 0.0")
    [(3, 'NaN'), (7, '0.0')]
    >>> device_comparison_lines(">>> a.cuda().sum()\ntensor(3.5000)\n>>> a.sum()\ntensor(3.5000)")
    []
    """
    if not _ANY_PROMPT.search(text):
        return []
    lines = text.split("\n")
    header: str | None = None
    typed: list[tuple[str, str, str, int, str]] = []  # (statement, device, result, first line, its text)
    for n, line in enumerate(lines):
        if len(line) > 500:
            continue
        h = _DEVICE_HEADER.match(line) if len(line) <= 40 else None
        if h:
            header = "gpu" if h["device"].lower() in ("gpu", "cuda") else "cpu"
            continue
        m = _TYPED_AT.match(line)
        if not m:
            continue
        expr = m["expr"]
        if _DEVICE_DEPENDENT.search(expr) and not _KEYED_DRAW.search(expr):
            continue
        # an expression without a device of its own runs where the header says, else where values live by default
        # ("plain": beside an explicit gpu(...) of the same expression, the host's)
        device = "gpu" if _TO_GPU.search(expr) else "cpu" if _TO_CPU.search(expr) else header or "plain"
        body: list[tuple[int, str]] = []
        for k in range(n + 1, min(n + 12, len(lines))):
            if not lines[k].strip() or _TYPED_AT.match(lines[k]) or _DEVICE_HEADER.match(lines[k]):
                break
            if not body and _TYPE_LINE.match(lines[k]):
                continue
            body.append((k + 1, lines[k].strip()))
        if not body or not any(_ELEMENT.search(s) for _, s in body):
            continue
        statement = _DEVICE_WORDS.sub("", expr)
        result = _VALUE_ATTRS.sub("", " ".join(s for _, s in body))
        typed.append((statement, device, result, body[0][0], body[0][1]))
        if len(typed) >= _MAX_TYPED:
            break
    out: list[tuple[int, str]] = []
    for i, (statement, device, result, first, shown) in enumerate(typed):
        for other, other_device, other_result, number, other_shown in typed[i + 1 :]:
            if statement == other and _devices_differ(device, other_device) and values_differ(result, other_result):
                out += [(first, shown), (number, other_shown)]
    return sorted(set(out))[:limit]


# --- Rust's assert_eq! on two values that differ ---------------------------------------------------

#: Rust's standard library's message for a failed ``assert_eq!`` (rustc 1.95: "assertion `left == right` failed",
#: an optional ": <message>", then the two values on lines of their own, "  left: 25.926" / " right: 57.6732")
_RUST_ASSERT_EQ = re.compile(
    r"^[ \t]*assertion `left == right` failed(?::[^\n]*)?\n[ \t]*left: (?P<left>[^\n]+)\n[ \t]*right: (?P<right>[^\n]+)$",
    re.MULTILINE,
)


def rust_assert_eq_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    r"""A failed ``assert_eq!`` of a Rust program or test whose two printed values differ as numbers (a GPU
    result against its reference): the assertion's line.  Values that are not numbers (strings, shapes) are
    left to the test's own words.

    >>> rust_assert_eq_lines("thread 'main' panicked at t.rs:4:5:\nassertion `left == right` failed\n  left: 25.926\n right: 57.6732")
    [(2, 'assertion `left == right` failed')]
    >>> rust_assert_eq_lines("assertion `left == right` failed\n  left: \"cuda\"\n right: \"cpu\"")
    []
    """
    if "left == right" not in text:
        return []
    out: list[tuple[int, str]] = []
    for m in _RUST_ASSERT_EQ.finditer(text):
        if values_differ(m["left"].strip(), m["right"].strip()):
            line = text[m.start() : text.index("\n", m.start())].strip()
            out.append((text.count("\n", 0, m.start()) + 1, line))
            if len(out) >= limit:
                break
    return out


# --- a row of a printed table flagged as the wrong one -----------------------------------------

_FLAGGED = re.compile(
    r"^(?P<body>[^*#\n][^\n]*?[:=|]\s*(?:array\(|tensor\()?[-+\[(\d][^\n]*?)\s+"
    r"(?P<flag>\*{3,}|<-+\s*(?i:mismatch\w*|wrong|differ\w*|incorrect|bad|error|fail\w*|!+)|!{3,})\s*$"
)
_ROW_VALUE = re.compile(r"[:=|]\s*(?:array\(|tensor\()?[-+\[(\d]")


def flagged_row_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """A row of printed values that the program marks as the wrong one (``... : [[1.0, 3.0], [2.0, 4.0]]
    *****``, ``x[3] = 7.0  <-- mismatch``) beside a row of the same kind that it does not mark.

    >>> flagged_row_lines("A : [1.0, 2.0]\\nB : [2.0, 1.0] *****")
    [(2, 'B : [2.0, 1.0] *****')]
    >>> flagged_row_lines("***** Running training *****\\n  Num examples = 100")
    []
    """
    if "***" not in text and "<-" not in text and "!!!" not in text:
        return []
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if len(line) > 2000 or not _FLAGGED.match(line):
            continue
        neighbours = [lines[j] for j in (i - 1, i + 1) if 0 <= j < len(lines)]
        if any(_ROW_VALUE.search(nb) and not _FLAGGED.match(nb) for nb in neighbours):
            out.append((i + 1, line.strip()))
            if len(out) >= limit:
                break
    return out


# --- a metric printed as exactly zero beside the same metric of a reference ---------------------

_ZERO_VALUE = re.compile(r"[:=][ \t]*[-+]?0(?:\.0*)?(?![\w.])")
_METRIC_VALUE = re.compile(r"[:=][ \t]*(?P<value>" + _NUMBER + r")")
_LOWER_IS_BETTER = re.compile(r"(?i:err|diff|delta|loss|dist|time|latency|mismatch|fail|nan|inf|miss|wrong|warn)")
_REF_PREFIXES = frozenset({"baseline", "reference", "ref", "expected", "golden", "eager", "cpu", "fp32", "original"})
_REF_ANY = re.compile(r"(?i)(?<![a-z])(?:" + "|".join(sorted(_REF_PREFIXES)) + ")")


def _metric_values(line: str) -> list[tuple[list[str], float]]:
    """(label words lower-cased, value) of each ``label: number`` on a line; the label is up to two words."""
    out = []
    for m in _METRIC_VALUE.finditer(line):
        words: list[str] = []
        for token in reversed(line[max(0, m.start() - 60) : m.start()].split()[-2:]):
            token = token.strip("(),;[]")
            if not token or not token[0].isalpha():
                break
            words[:0] = [w for w in re.split(r"[\W_]+", token.lower()) if w]
        try:
            value = float(m["value"])
        except ValueError:
            continue
        if words and not math.isnan(value):
            out.append((words, value))
    return out


@functools.cache
def _ref_words() -> Any:
    return _words_automaton(_REF_PREFIXES)


def _names_a_reference(text: str) -> bool:
    """Whether ``_REF_ANY`` finds a word in ``text``: on ASCII text, a word of the lowered text that no
    letter precedes (ASCII case folding is lower()'s), from one automaton pass."""
    if not text.isascii():
        return _REF_ANY.search(text) is not None
    lower = text.lower()
    for end, size in _ref_words().iter(lower):
        start = end - size + 1
        if start == 0 or not ("a" <= lower[start - 1] <= "z"):
            return True
    return False


def _lines_matching(text: str, rx: re.Pattern[str]) -> Iterator[int]:
    """Indices (from 0) of the lines ``rx`` matches on, in order, from one scan of the text: for a
    pattern that neither consumes nor looks past a newline, the lines a search of each line finds."""
    line, at = 0, 0
    for m in rx.finditer(text):
        start = m.start()
        if start < at:
            continue
        line += text.count("\n", at, start)
        yield line
        end = text.find("\n", start)
        if end < 0:
            return
        line, at = line + 1, end + 1


def zero_metric_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """A metric printed as exactly 0 where the same metric of a reference is printed non-zero on the same or
    the next line (``accuracy: 0.0 (baseline accuracy: 0.85)``, ``ref_acc = 0.91``).  A zero alone, or a
    zero reference, says nothing.

    >>> zero_metric_lines("accuracy: 0.0 (baseline accuracy: 0.85)")
    [(1, 'accuracy: 0.0 (baseline accuracy: 0.85)')]
    >>> zero_metric_lines("accuracy: 0.0\\nloss: 0.85")
    []
    """
    if "0" not in text or not _names_a_reference(text):
        return []
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    for i in _lines_matching(text, _ZERO_VALUE):
        line = lines[i]
        if len(line) > 2000:
            continue
        near = "\n".join(lines[i : i + 2])
        if len(near) > 4000 or not _REF_ANY.search(near):
            continue
        refs = [
            (set(words) - _REF_PREFIXES, value)
            for words, value in _metric_values(near)
            if set(words) & _REF_PREFIXES and value != 0
        ]
        for words, value in _metric_values(line):
            metric = words[-1]
            if value != 0 or set(words) & (_REF_PREFIXES | _REF_WORDS | _DEV_WORDS | _MEASURES):
                continue
            if _LOWER_IS_BETTER.search(" ".join(words)):
                continue  # a zero error, loss or count of failures is the good end of the scale
            if any(metric in names for names, _ in refs):
                out.append((i + 1, line.strip()))
                break
        if len(out) >= limit:
            break
    return out


# --- a check of agreement evaluated for its verdict, and the verdict False ------------------------

#: a call whose value is the verdict that two results agree (``torch.allclose``, ``np.array_equal``,
#: ``torch.equal``, Julia's ``issorted``/``isapprox``/``≈``); a name that only asks for a value does not count
_CHECK_CALL = re.compile(
    r"\b(?:allclose|isclose\([^\n]*\)\.all|array_equal|array_equiv|equal|issorted|is_sorted|isapprox|assert_equal)\s*\("
    r"|\s≈\s"
)
#: a prompt or a print around such a call (``>>> torch.allclose(a, b)``, ``julia> issorted(x)``, ``print(...)``)
_CHECK_TYPED = re.compile(r"^\s*(?:>>>|In \[\d+\]:|julia>|>|\(Pdb\)|ipdb>)\s|\bprint(?:ln)?\s*\(|@show\s")
#: the verdict alone on its line, as the languages print a false boolean (``False``, ``false``,
#: ``tensor(False)``, ``Array(False, dtype=bool)``, ``np.False_``, ``Out[3]: False``)
_FALSE_ALONE = re.compile(
    r"^\s*(?:Out\[\d+\]:\s*)?(?:(?:tensor|Array|array)\(\s*False\b[^\n]*\)|np\.False_|False|false)\s*$"
)
#: a verdict printed with its label on one line (``allclose: False``, ``match = False``,
#: ``torch.allclose(out, ref) = False``, ``outputs equal? False``, KernelBench's ``correctness: False``)
_LABELLED_FALSE = re.compile(
    r"(?i:\b(?:all_?close|is_?close|equal|equals|same|match(?:es|ed)?|correct(?:ness)?|identical|is_?sorted|consistent"
    r"|verified)\b)(?:\([^\n]*\))?\s*\??\s*[:=]+\s*(?:(?:tensor|Array|array)\()?False\b"
)


def _check_above(above: list[str]) -> bool:
    """A check of agreement typed, printed or called on one of the lines just above a verdict (a REPL block
    may close with ``end`` after it)."""
    return any(_CHECK_CALL.search(p) and (_CHECK_TYPED.search(p) or p.strip().endswith(")")) for p in above)


def verdict_false_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """A check of agreement evaluated for its verdict and answered False: a closeness, equality or
    sortedness check typed at a prompt or printed (``>>> torch.allclose(out, ref)``, ``julia> issorted(x)``)
    with ``False`` alone on the next line, or the verdict printed with its label (``allclose: False``).

    >>> verdict_false_lines(">>> torch.allclose(out, ref)\\nFalse")
    [(2, 'False')]
    >>> verdict_false_lines("allclose: True\\nuse_fast: False")
    []
    """
    if "alse" not in text:
        return []
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    # a verdict's line holds "False" or "false": only the lines that hold "alse" are tried, found with str.find
    i = done = 0
    pos = text.find("alse")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        i += text.count("\n", done, start)
        done = start
        line = lines[i]
        if len(line) <= 2000 and (
            _LABELLED_FALSE.search(line) or (_FALSE_ALONE.match(line) and _check_above(lines[max(0, i - 3) : i]))
        ):
            out.append((i + 1, line.strip()))
            if len(out) >= limit:
                break
        end = text.find("\n", pos)
        if end < 0:
            break
        pos = text.find("alse", end)
    return out


# --- a table that marks its own cells or rows failed --------------------------------------------

#: a cell marked failed beside its value, as result tables print it: ``XX 0.979`` beside ``ok 1.000`` cells,
#: ``8160 ✗``, ``❌ 0.41``, ``MISMATCH 3.5``; the marker before or after the number
_MARK_FAIL = r"(?:XX|✗|✘|❌|MISMATCH)"
_MARK_PASS = r"(?:ok|OK|Ok|✓|✔|✅|PASS|pass|MATCH|match)"
_PLAIN_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_MARKED = (
    r"(?:^|[\s|(\[])(?:\*\*)?(?P<m1>{m})(?:\*\*)?\s+(?:\*\*)?" + _PLAIN_NUMBER + r"(?![\w])"
    r"|(?<![\w.])" + _PLAIN_NUMBER + r"(?:\*\*)?\s*(?P<m2>{m})(?=[\s|)\],;]|$)"
)
_CELL_FAIL = re.compile(_MARKED.format(m=_MARK_FAIL))
_CELL_PASS = re.compile(_MARKED.format(m=_MARK_PASS))
#: markers that say failed whatever the table: a cross, a red cross (``XX`` and ``MISMATCH`` need a table that
#: also marks cells passed: ``sm_XX 80`` is not a verdict)
_CROSSES = frozenset({"✗", "✘", "❌"})


def marked_cell_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """Lines of a results table with a cell its program marks failed beside the value (``| XX 0.979 |``
    where other cells read ``ok 1.000``; a value with a cross after it, ``8160 ✗``).  A ``XX`` or ``MISMATCH``
    mark counts only where the same table also marks cells passed (``ok``, ``✓``, ``PASS``).

    >>> marked_cell_lines("128 | ok 1.000 | ok 0.999\\n256 | ok 1.000 | XX 0.902")
    [(2, '256 | ok 1.000 | XX 0.902')]
    >>> marked_cell_lines("arch sm_XX 80 | compute_XX 80")
    []
    """
    if not any(m in text for m in ("XX", "✗", "✘", "❌", "MISMATCH")):
        return []
    lines = text.split("\n")
    passed = any(len(line) <= 2000 and _CELL_PASS.search(line) for line in lines)
    out: list[tuple[int, str]] = []
    for i, line in enumerate(lines):
        if len(line) > 2000:
            continue
        for m in _CELL_FAIL.finditer(line):
            mark = m["m1"] or m["m2"]
            if mark in _CROSSES or passed:
                out.append((i + 1, line.strip()))
                break
        if len(out) >= limit:
            break
    return out


#: a table's column that states the lowest (or highest) value a row may have
_FLOOR_HEADER = re.compile(
    r"(?i)^(?:floor|lower[\s_-]bound|min(?:imum)?[\s_-]required|required[\s_-]min(?:imum)?|pass[\s_-]floor"
    r"|min(?:imum)?[\s_-]allowed)$"
)
_CEILING_HEADER = re.compile(r"(?i)^(?:ceiling|upper[\s_-]bound|max(?:imum)?[\s_-]allowed|allowed[\s_-]max(?:imum)?)$")
#: columns whose values are not the metric itself (a change, a spread, a count)
_NOT_METRIC_HEADER = re.compile(r"(?i)\b(?:delta|diff\w*|change|std|stddev|sigma|count|n|size|runs?|Δ)\b|Δ")
_CELL_NUMBER = re.compile(r"^\s*(?:\*\*|__)?(?P<v>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*%?\s*(?:\*\*|__)?\s*$")


def _cells(line: str) -> list[str] | None:
    """The cells of a markdown table row (``| a | b |``), None for another line."""
    s = line.strip()
    if not (s.startswith("|") and s.endswith("|")) or s.count("|") < 3:
        return None
    return [c.strip() for c in s[1:-1].split("|")]


def _cell_value(cell: str) -> float | None:
    m = _CELL_NUMBER.match(cell)
    return float(m["v"]) if m else None


def _table_rows(text: str, box_rules: bool = False) -> Iterator[tuple[int, str, list[str], list[str]]]:
    """The data rows of the markdown tables in ``text``: (line number, the stripped line, the header's cells, the
    row's cells).  A row is a line of as many cells as the table's first line (its header); a separator line
    (``|---|:--|``) is skipped, any other line ends the table.  ``box_rules``: a box-drawn table's rule lines
    (``+----+----+``) inside a table are skipped too.

    >>> [(n, c) for n, _, _, c in _table_rows("| a | b |\\n|---|---|\\n| 1 | 2 |\\ntext\\n| 3 | 4 |")]
    [(3, ['1', '2'])]
    """
    header: list[str] | None = None
    for i, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if box_rules and header is not None and stripped[:1] == "+" and set(stripped) <= set("+-=: "):
            continue
        cells = _cells(line) if len(line) <= 2000 else None
        if cells is None:
            header = None
            continue
        if header is None or len(cells) != len(header):
            header = cells
            continue
        if all(set(c) <= set("-: ") for c in cells):
            continue
        yield i + 1, stripped, header, cells


def below_floor_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """Rows of a markdown results table whose own ``floor`` column (``lower bound``, ``min required``; or
    ``ceiling``, ``upper bound``, ``max allowed``) a value of the same row is beyond: the table states the
    pass line and the value under it.

    >>> below_floor_lines("| metric | baseline | new | floor |\\n|---|---|---|---|\\n| acc | 87.4 | **11.3** | 83.6 |")
    [(3, '| acc | 87.4 | **11.3** | 83.6 |')]
    >>> below_floor_lines("| metric | baseline | new | floor |\\n|---|---|---|---|\\n| acc | 87.4 | 86.9 | 83.6 |")
    []
    """
    if "|" not in text or not any(w in text.lower() for w in ("floor", "bound", "required", "allowed", "ceiling")):
        return []
    out: list[tuple[int, str]] = []
    for n, row, header, cells in _table_rows(text):
        bounds = [(j, -1) for j, h in enumerate(header) if _FLOOR_HEADER.match(h)]
        bounds += [(j, 1) for j, h in enumerate(header) if _CEILING_HEADER.match(h)]
        bounded = {j for j, _ in bounds}
        for j, sign in bounds:
            bound = _cell_value(cells[j])
            if bound is None:
                continue
            values = [
                _cell_value(c)
                for k, c in enumerate(cells)
                if k not in bounded and header[k] and not _NOT_METRIC_HEADER.search(header[k])
            ]
            if any(v is not None and (v - bound) * sign > 0 for v in values):
                out.append((n, row))
                break
        if len(out) >= limit:
            break
    return out


# --- a table of errors against a reference whose errors are beyond rounding -----------------------

#: a column that counts the share of elements over a tolerance (``Elemente >1e-2``, ``elements > tol``,
#: ``mismatch %``, ``% mismatched``, ``frac_bad``): its header says "over a bound" or "mismatched" as a share
_SHARE_HEADER = re.compile(
    r"(?i)(?:>|\bover\b|\babove\b|\bexceed\w*)\s*=?\s*(?:tol\w*|atol|rtol|thresh\w*|[-+]?\d*\.?\d+(?:e[-+]?\d+)?)"
    r"|\bmis-?match\w*\s*(?:%|\(%\)|pct|percent|rate|frac\w*|share|ratio)"
    r"|(?:%|pct|percent|frac\w*|share)\s*(?:of\s*)?(?:elements?\s*)?mis-?match\w*"
    r"|\b(?:bad|fail\w*|wrong)\s*(?:%|pct|percent|frac\w*|share)"
)
#: a column of a robust statistic of the error (a high percentile or the median), which a few elements
#: near zero in the reference do not dominate the way they dominate a maximum relative error
_ROBUST_HEADER = re.compile(r"(?i)(?:^|[\s_(])(?:p(?:50|9\d(?:\.\d+)?)|median|q(?:50|9\d))(?:$|[\s_)])")
#: a column of a relative or absolute error (``max_rel``, ``rel_err``, ``MaxAbsDiff``, ``max diff``)
_ERROR_HEADER = re.compile(r"(?i)rel|abs|err|diff|dev")
_REL_HEADER = re.compile(r"(?i)rel")
#: a column of times or rates, whose percentiles are latencies, not errors
_TIME_HEADER = re.compile(r"(?i)\b(?:ms|us|µs|ns|sec|s)\b|time|latenc|lat\b|through|tok|/s\b|speed|bw|flop")
#: how much of the output a rounding error may put over a tight tolerance, in per cent (fp16/bf16 rounding is
#: about 1e-3 relative: well above it, a share of elements over the tolerance well above zero is wrong values)
_SHARE_FAIL_PCT = 1.0
#: a high percentile or the median of a relative error beyond any rounding of fp16/bf16/fp32 results
_ROBUST_FAIL = 0.1


def _share_pct(cell: str, header: str) -> float | None:
    """The share in a cell, in per cent: a value with ``%`` or under a header that says per cent, else a
    fraction from 0 to 1 (a count of elements has no share and answers None)."""
    v = _cell_value(cell)
    if v is None:
        return None
    if "%" in cell or re.search(r"(?i)%|pct|percent", header):
        return v
    return v * 100 if 0 <= v <= 1 else None


def error_table_lines(text: str, limit: int = 3) -> list[tuple[int, str]]:
    """Rows of a table of errors against a reference (a markdown or box-drawn table) whose errors are beyond
    any floating-point rounding: a share of elements over a tolerance of at least 1 % (``Elemente >1e-2``,
    ``mismatch %``), or a high percentile or the median of the relative error (``p99.9``) of 0.1 or more
    beside a relative/absolute error column.  A maximum relative error alone does not count: a reference
    element near zero makes it huge for a correct kernel.

    >>> error_table_lines("| kernel | max_rel | p99.9 | elements >1e-2 |\\n|---|---|---|---|\\n| a | 0.85 | 0.59 | 31% |")
    [(3, '| a | 0.85 | 0.59 | 31% |')]
    >>> error_table_lines("| kernel | max_rel | p99.9 | elements >1e-2 |\\n|---|---|---|---|\\n| a | 2e-3 | 1e-3 | 0% |")
    []
    """
    if "|" not in text:
        return []
    out: list[tuple[int, str]] = []
    for n, row, header, cells in _table_rows(text, box_rules=True):
        relative = any(_REL_HEADER.search(h) for h in header)
        failed = False
        for j, h in enumerate(header):
            if _SHARE_HEADER.search(h):
                pct = _share_pct(cells[j], h)
                failed = pct is not None and pct >= _SHARE_FAIL_PCT
            elif (
                _ROBUST_HEADER.search(h)
                and (_ERROR_HEADER.search(h) or relative)
                and not _TIME_HEADER.search(h)
                and not _NOT_METRIC_HEADER.search(h)
            ):
                v = _cell_value(cells[j])
                failed = v is not None and v >= _ROBUST_FAIL
            if failed:
                out.append((n, row))
                break
        if len(out) >= limit:
            break
    return out
