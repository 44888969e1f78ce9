"""Explanations from the evidence: rule text that names this input's values.

A rule's ``what``, ``why`` and ``fix`` may reference evidence symbols (the names `when` uses,
:func:`diagnose.evidence.rule_types`)::

    what: The kernel asks for {concept_requested:bytes} of shared memory; the device has {concept_limit:bytes}.
    why: That is {ratio:concept_requested/concept_limit} the limit.

A placeholder is ``{symbol}`` or ``{symbol:format}`` (a symbol starts with its source: ``concept_``,
``sanitizer_``, ...; other braces are plain text); ``{ratio:a/b}`` divides two symbols.  Formats:
``bytes`` (a byte count, shown with its binary unit), ``mib`` (a count of MiB), ``int``, ``hex``,
``cc`` (a compute capability: ``8.6 (sm_86)``), ``cudaver`` (CUDA's version number, ``12020``, as
``12.2``), ``percent`` (a fraction: ``0.232`` as ``23.2%``), ``pow2`` (``2^33``), ``list`` and ``name`` (a
function's name from its signature).  ``{symbol:if}`` and ``{symbol:unless}`` are conditions, not
values: they render nothing where the symbol is true (``if``) or false or absent (``unless``), and
otherwise leave their ``[[ ... ]]`` segment (else their sentence) out, so a text states only the
branch that holds (``[[{concept_over_every_gpu:if}No GPU fits it.]]``).  Two marks agree the text
with a count:

- ``{n|error|errors}`` is the word for the count ``n``, the first when it is 1, else the second (a
  list counts its items); with a format the count comes first: ``{n:int|error|errors}`` reads
  ``1 error`` or ``4,096 errors``, and ``{m:int} of {n:int} elements {m|differs|differ}`` agrees a verb;
- ``?`` after the symbol or format (``{n?}``, ``{n:int?|error|errors}``) makes a count of 0 absent, so
  ``[[{p:int?} +Inf]]`` says nothing rather than "0 +Inf".

A long string is cut at a word boundary near 100 characters, after the prefixes that carry no
information there (``RuntimeError: CUDA error: ``, a log line's time stamp).  Nothing else is
evaluated: a placeholder is a name, a format and two words, never code.

When a placeholder's value is absent (null, empty, NaN, a zero divisor, a zero count marked ``?``), the
text it sits in is left out rather than shown with a gap: the ``[[ ... ]]`` segment around it (segments
nest: ``[[ It lies {a} it[[ ({d:bytes?} away)]].]]``), else its sentence; a connective or comma the dropped segment leaves dangling (``and.``, ``, .``, ``()``)
goes with it.  The text never shows ``None``, and a value's own closing period does not double the
sentence's.  ``kdiag rules lint`` checks every placeholder names a real symbol, format and count
form, and that the text renders, on each of the rule's own match examples.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from diagnose.clip import clip
from diagnose.formats import FORMATS, Absent, format_value, present


def _placeholder() -> re.Pattern[str]:
    from diagnose.evidence import SOURCES

    # only names that start with an evidence source (``{concept_...}``) or ``{ratio:...}``: other braces
    # in rule text (``cuda:{local_rank}``, C++ initialisers) are text
    heads = "|".join(sorted(SOURCES, key=len, reverse=True))
    return re.compile(
        r"\{((?:" + heads + r")_[a-z0-9_]+|ratio)(?::([A-Za-z0-9_/]+))?(\?)?(?:\|([^|{}]+)\|([^|{}]+))?\}"
    )


PLACEHOLDER = _placeholder()
# a segment with no segment inside it (segments nest: the innermost are decided first)
OPTIONAL = re.compile(r"\[\[((?:(?!\[\[|\]\]).)*)\]\]", re.DOTALL)
# a sentence ends at . ! ? followed by space and a capital, a backtick, a quote or a bracket; an
# ellipsis (`Write access at ... And`, an elision in a quoted message) and `e.g.`/`i.e.`/`vs.` end none
_SENTENCE = re.compile(r"((?<=[.!?])(?<!\.\.\.)(?<!e\.g\.)(?<!i\.e\.)(?<!vs\.)\s+(?=[A-Z`\"'(\[]))")
COUNT_FORMATS = (None, "int", "bytes", "mib")  # the formats a count agreeing with a word may have
_HIDDEN = ("sources", "log_text")  # symbols never listed under "In this log"


@dataclass(frozen=True)
class Rendered:
    what: str
    why: str
    fix: str
    caveats: str | None
    facts: tuple[tuple[str, str], ...]  # (symbol, value) the rule read, with a value here


def placeholders(text: str) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in PLACEHOLDER.finditer(text or "")]


def _count_problems(m: re.Match[str]) -> list[str]:
    """What is wrong with a placeholder's count marks (``?`` and ``|one|many``)."""
    name, fmt, nonzero, one = m.group(1), m.group(2), m.group(3), m.group(4)
    if name == "ratio" and (nonzero or one):
        return [f"{m.group(0)}: a ratio takes no count marks"]
    if one is not None and fmt not in COUNT_FORMATS:
        return [f"{m.group(0)}: a count agreeing with a word takes no format, int, bytes or mib"]
    if one is not None and not all(w.strip() == w and w for w in (one, m.group(5))):
        return [f"{m.group(0)}: the words of a count have no spaces around them"]
    return []


def problems(text: str, symbols: Iterable[str]) -> list[str]:
    """What is wrong with the placeholders of ``text`` (unknown symbols or formats)."""
    known = set(symbols)
    out = []
    for m in PLACEHOLDER.finditer(text or ""):
        name, fmt = m.group(1), m.group(2)
        out += _count_problems(m)
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


def _count(value: Any) -> float:
    """A value as a count (a list counts its items); Absent when it is none."""
    if isinstance(value, list | tuple):
        return float(len(value))
    if isinstance(value, bool) or not present(value):
        raise Absent
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise Absent from exc


def _value(
    name: str,
    fmt: str | None,
    context: Mapping[str, Any],
    *,
    nonzero: bool = False,
    words: tuple[str, str] | None = None,
) -> str:
    """One placeholder's text (raises Absent when it has no value here); ``nonzero``: a count of 0
    is absent; ``words``: the word for the count, after the count when there is a format."""
    if nonzero or words:
        n = _count(context.get(name))
        if nonzero and n == 0:
            raise Absent
        if words:
            word = words[0] if n == 1 else words[1]
            return word if fmt is None else f"{format_value(context.get(name), fmt)} {word}"
    if name == "ratio":
        a, _, b = (fmt or "").partition("/")
        num: Any = context.get(a)
        den: Any = context.get(b)
        if not present(num) or not present(den):
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


# after a placeholder: the sentence's own period, maybe behind a closing quote or bracket
_PERIOD_AFTER = re.compile(r"[\"'`)\]]*\.")


def _fill(text: str, context: Mapping[str, Any]) -> str:
    """Every placeholder of ``text`` replaced (raises Absent when one has no value):
    ``PLACEHOLDER.sub`` with each placeholder's value, from the text's placeholders found once."""
    parts, tail = _placeholders_in(text)
    if not parts:
        return text
    out: list[str] = []
    for before, m in parts:
        out.append(before)
        out.append(_filled(m, context))
    out.append(tail)
    return "".join(out)


@functools.lru_cache(maxsize=8192)
def _placeholders_in(text: str) -> tuple[tuple[tuple[str, re.Match[str]], ...], str]:
    """The placeholders of a rule text, each with the text before it, and the text after the last: a
    rule's texts are few and filled for every finding."""
    parts = []
    end = 0
    for m in PLACEHOLDER.finditer(text):
        parts.append((text[end : m.start()], m))
        end = m.end()
    return tuple(parts), text[end:]


def _filled(m: re.Match[str], context: Mapping[str, Any]) -> str:
    words = (m.group(4), m.group(5)) if m.group(4) is not None else None
    value = _value(m.group(1), m.group(2), context, nonzero=bool(m.group(3)), words=words)
    after = _PERIOD_AFTER.match(m.string, m.end())
    # a quoted message's own closing period and the sentence's: one is enough
    if after and value.endswith(".") and (after.end() == m.end() + 1 or not value.endswith("..")):
        value = value[:-1]
    return value.replace("\0", "")


# the gap a dropped segment (\0) leaves: a connective or comma before it that nothing follows, an empty
# pair of parentheses, a connective after it at the start of a clause
_DANGLING = (
    (re.compile(r"\0(?:[ \t]*\0)+"), "\0"),
    (re.compile(r"[ \t]*\([ \t]*\0[ \t]*\)"), "\0"),
    (re.compile(r"(?:[ \t]*,)?[ \t]+(?:and|or|but|with|plus)[ \t]*\0(?=[ \t]*(?:[.,;:)]|$))"), "\0"),
    (re.compile(r"[ \t]*[,;:][ \t]*\0(?=[ \t]*(?:[.;:)]|$))"), "\0"),
    (re.compile(r"(^|[(:][ \t]*)\0[ \t]*(?:(?:and|or|plus)[ \t]+|,[ \t]*)"), r"\1"),
)

# the space a dropped segment leaves: none before the punctuation that follows it (a value's own
# spacing, `not supported on .target`, and an ellipsis, `at ... and`, are kept), none after an opening
# bracket, one space elsewhere
_DROPPED_GAP = (
    (re.compile(r"[ \t]*\0[ \t]*(?=[,;:)]|\.(?!\.))"), ""),
    (re.compile(r"(?<=[(\[])[ \t]*\0[ \t]*"), ""),
    (re.compile(r"[ \t]*\0[ \t]*"), " "),
)
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}")
#: every character a match of the patterns above can hold before its mark (blanks, punctuation, the letters
#: of the connectives): a match starts in the run of these that ends at a mark
_NEAR_MARK = frozenset(" \t,;:([" + "andorbutwithplus")


def _sub_near_marks(pattern: re.Pattern[str], repl: str, text: str) -> str:
    """``pattern.sub(repl, text)`` for a pattern of :data:`_DANGLING` or :data:`_DROPPED_GAP`, tried only where
    a match can start: in the run of :data:`_NEAR_MARK` characters before each dropped segment's mark, which
    every match holds.  The same leftmost, non-overlapping matches, found without scanning the whole text
    (``match`` at a position still sees the text around it: lookbehinds, ``^`` and ``$`` read as in ``sub``)."""
    out: list[str] = []
    last = 0
    mark = text.find("\0")
    while mark >= 0:
        start = mark
        while start > last and text[start - 1] in _NEAR_MARK:
            start -= 1
        for pos in range(start, mark + 1):
            m = pattern.match(text, pos)
            if m:
                out.append(text[last : m.start()])
                out.append(m.expand(repl) if "\\" in repl else repl)  # no group reference: the text itself
                last = m.end()
                break
        mark = text.find("\0", max(mark + 1, last))
    out.append(text[last:])
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _sentences(text: str) -> list[str]:
    """``_SENTENCE.split(text)`` (sentences and the space between them), split once per text: the rule
    texts are few and rendered for every finding.  The caller only reads the list."""
    return _SENTENCE.split(text)


def _innermost_first(text: str, repl: Any) -> str:
    while True:
        out = OPTIONAL.sub(repl, text)
        if out == text or "[[" not in out:  # no segment left: another pass would change nothing
            return out
        text = out


def required_text(text: str) -> str:
    """``text`` without its ``[[ ]]`` segments: what must have values for its sentence to show."""
    return _innermost_first(text, "")


def render(text: str, context: Mapping[str, Any]) -> str:
    """``text`` with its placeholders filled from ``context``; segments and sentences whose values
    are absent left out."""
    if not text or ("{" not in text and "[[" not in text):
        return text
    # a text reads nothing of the context but its placeholders' symbols: with the same values, the same text (a
    # rule's texts are rendered for every finding, most of them with values seen before)
    key = _render_key(text, context)
    if key is None:
        return _render(text, context)
    out = _RENDERED.get(key)
    if out is None:
        out = _render(text, context)
        if len(_RENDERED) >= _RENDERED_MAX:
            _RENDERED.clear()
        _RENDERED[key] = out
    return out


#: :func:`render`'s answers by text and the values of its symbols (at most this many kept)
_RENDERED: dict[tuple[Any, ...], str] = {}
_RENDERED_MAX = 1 << 16
#: the kinds of value a key holds as they are (a float by its repr: 0.0 and -0.0 are equal, and show apart)
_KEYED = frozenset({str, int, bool, type(None)})


def _render_key(text: str, context: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """``text`` and the values of the symbols its placeholders read, each with its type (``1``, ``1.0`` and
    ``True`` show apart); None where a value is of another kind (it is rendered, not remembered)."""
    key: list[Any] = [text]
    for name in _template_symbols((text,)):
        v = context.get(name)
        t = type(v)
        if t in _KEYED:
            key.append((t, v))
        elif t is float:
            key.append((t, repr(v)))
        elif isinstance(v, tuple | list) and (t is tuple or t is list) and all(type(x) is str for x in v):
            key.append((t, tuple(v)))
        else:
            return None
    return tuple(key)


def _render(text: str, context: Mapping[str, Any]) -> str:
    """:func:`render`, made."""

    def optional(m: re.Match[str]) -> str:
        try:
            _fill(m.group(1), context)
        except Absent:
            return "\0"  # dropped; the space around it is tidied below
        return m.group(1)  # kept, filled with its sentence (a value is never read as a placeholder)

    if "[[" in text:  # no segment: nothing to decide (OPTIONAL needs one)
        text = _innermost_first(text, optional)
    pieces = _sentences(text)
    out: list[str] = []
    for i in range(0, len(pieces), 2):
        sentence = pieces[i]
        try:
            filled = _fill(sentence, context) if "{" in sentence else sentence  # no "{": no placeholder
        except Absent:
            continue
        if out:
            out.append(pieces[i - 1] if i > 0 else " ")
        out.append(filled)
    result = "".join(out)
    if "\0" in result:  # a dropped segment's mark: every pattern below needs one
        for pattern, repl in (*_DANGLING, *_DROPPED_GAP):
            result = _sub_near_marks(pattern, repl, result)
    if "  " in result or "\t" in result:  # two blanks in a row need one of these
        result = _SPACES.sub(" ", result)
    return result.strip()


def read_facts(symbols: Iterable[str], context: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The values of the facts a rule read that this input has (for "In this log: ...")."""
    out = []
    for name in symbols:
        if name in _HIDDEN or name.endswith("_lines"):
            continue
        value = context.get(name)
        if value is False or not present(value):
            continue
        fmt = "bytes" if name.endswith("_bytes") else "mib" if name.endswith("_mib") else None
        fmt = "name" if name.endswith(("_kernel", "_function")) else fmt  # a long name keeps its own part
        try:
            shown = format_value(value, fmt)
        except Absent:
            continue
        out.append((name, shown if len(shown) <= 120 else clip(shown, 120)))
    return tuple(out)


def explain_finding(rule: Any, evidence: Any, context: Mapping[str, Any] | None = None) -> Rendered:
    """A rule's explanation rendered against one input's evidence (``context``: its rule context, when
    the caller has it already)."""
    if context is None:
        context = evidence.context()
    context = own_message(rule, evidence, context)
    e = rule.explain
    symbols = dict.fromkeys([*rule.symbols, *template_symbols(rule)])
    fw = framework(context) if e.fixes else None  # the framework only picks among per-framework fixes
    fix = dict(e.fixes).get(fw, e.fix) if fw else e.fix
    # a text whose every sentence needs an absent value falls back to the title (lint keeps one
    # sentence of each text free of placeholders, so this is for rules from elsewhere)
    # where the failing code lives leads the fix (a library's, generated, the toolchain's), and a fix's
    # pointer to a source line names the log's own line or says there is none (diagnose.placement)
    from diagnose.placement import located_fix, location_facts

    return Rendered(
        what=render(e.what, context) or rule.title,
        why=render(e.why, context) or rule.title,
        fix=located_fix(
            render(fix, context) or rule.title, rule.category, context, for_caller="{location_library" in fix
        ),
        caveats=explain_caveats(rule, context),
        facts=((("framework", fw),) if fw and e.fixes else ()) + read_facts(symbols, context) + location_facts(context),
    )


def own_message(rule: Any, evidence: Any, context: Mapping[str, Any]) -> Mapping[str, Any]:
    """``context`` with ``concept_message`` the line the rule's own message family matched, for a family's rule
    (or one of its candidates) when an earlier error family (a wrapper's "raised:" line, a framework's
    re-raise) holds the log's first error line: the rule quotes the message that decided it."""
    if "family" not in getattr(rule, "tags", ()):
        return context
    families = context.get("concept_families") or ()
    fam = rule.id if rule.id in families else rule.id.rsplit("-as-", 1)[0]
    lines = context.get("concept_family_lines") or ()
    if fam == context.get("concept_family") or fam not in families or len(lines) != len(families):
        return context
    text = getattr(getattr(evidence, "log", None), "text", "") or ""
    n = lines[families.index(fam)]
    got = text.split("\n", n)
    line = " ".join(got[n - 1].split()) if 0 < n <= len(got) else ""
    if not line:
        return context
    return {**context, "concept_message": line if len(line) <= 300 else line[:297] + "..."}


def explain_caveats(rule: Any, context: Mapping[str, Any]) -> str | None:
    """A rule's caveats rendered against one input's rule context: the one text of a finding an abstention
    shows (its next check), made without the others."""
    from diagnose.placement import located_caveats

    e = rule.explain
    caveats = (render(e.caveats, context) or None) if e.caveats else None
    return located_caveats(caveats, rule.failure_mode, context)


# --- the framework the failing code is written in ---------------------------------------------

_JAX = re.compile(r"\bjax(?:lib)?\b|XlaRuntimeError|\bpallas\b", re.IGNORECASE)
_TRITON = re.compile(r"\btriton\b|@triton\.jit|\btl\.(?:load|store|dot|arange)\b|Triton Error \[CUDA\]")
# CuPy's modules, and its CUDA errors' own module (`cupy_backends.cuda.api.runtime.CUDARuntimeError`)
_CUPY = re.compile(r"\bcupy(?:x|_backends)?\b", re.IGNORECASE)
_NUMBA = re.compile(r"\bnumba\b|\bcudapy::", re.IGNORECASE)  # cudapy:: starts Numba's kernel names
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
    if _JAX.search(here) or _in_log(_JAX, text):
        return "jax"
    # a controlled run that captured @triton.jit launches: its ptxas lines are the compile for the target GPU
    if context.get("run_launches"):
        return "triton"
    if context.get("triton_error") or context.get("triton_lines") or _TRITON.search(here) or _in_log(_TRITON, text):
        return "triton"
    if _in_log(_TRITON_FRAME, text):
        return "triton"
    if _CUPY.search(here) or _in_log(_CUPY, text):
        return "cupy"
    if _NUMBA.search(here) or _in_log(_NUMBA, text):
        return "numba"
    if _TORCH.search(here) or _in_log(_TORCH, text):
        return "torch"
    if _in_log(_OTHER, text):
        return None
    python = bool(context.get("py_exc_type")) or "Traceback (most recent call last)" in text
    native = context.get("compiler_tool") in ("nvcc", "ptxas", "nvrtc") or context.get("sanitizer_tool")
    # a C++ program's uncaught exception (libstdc++'s "terminate called after throwing an instance of ..."), with no
    # Python in the log: C++ advice, not a traceback's and pip's
    native = native or "terminate called after throwing an instance of" in text
    if not python and (native or context.get("cuda_error")):
        return "cuda"
    return None


def names_other_framework(context: Mapping[str, Any]) -> bool:
    """The log names a framework kdiag keys no text for (TensorFlow, Paddle): :func:`framework` is None for it."""
    return framework(context) is None and _in_log(_OTHER, str(context.get("log_text") or "")[:200_000])


def _in_log(rx: re.Pattern[str], text: str) -> bool:
    """``rx.search(text)``, after the pattern's anchor test (a log is long; its words are few)."""
    test = _LOG_TESTS.get(rx, False)
    if test is False:
        from diagnose.regex_anchor import anchor_test

        test = _LOG_TESTS[rx] = anchor_test(rx)
    return (test is None or test(text)) and rx.search(text) is not None


_LOG_TESTS: dict[re.Pattern[str], Any] = {}


def frameworks_possible(requires: Iterable[str]) -> frozenset[str]:
    """The frameworks evidence with these sources can come from."""
    out = frozenset({"cuda", "triton", "torch", "jax", "cupy", "numba"})
    for src in requires:
        out &= SOURCE_FRAMEWORKS.get(src, out)
    return out


def template_symbols(rule: Any) -> list[str]:
    """The evidence symbols a rule's explanation references."""
    e = rule.explain
    return list(_template_symbols((e.what, e.why, e.fix, e.caveats or "")))


@functools.lru_cache(maxsize=4096)
def _template_symbols(texts: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`template_symbols` of these texts, read once per rule text (every finding renders one)."""
    out: list[str] = []
    for text in texts:
        for name, fmt in placeholders(text):
            out += (fmt or "").split("/") if name == "ratio" else [name]
    return tuple(s for s in dict.fromkeys(out) if s)
