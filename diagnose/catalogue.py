"""The message catalogue: what each tool can print, grouped into families, one family per cause.

A family is data (``diagnose/data/catalogue/<tool>.yaml``), taken from the tool's own files — its
message strings (``strings`` on a binary, a library's error table, a package's sources) and its
documentation — never from one user's report.  Each file::

    tool: ptxas                      # the tool whose messages these are
    versions: {ptxas: "13.0.88"}     # the versions the messages were read from
    families:
      - id: ptxas-ptx-isa-too-new    # kebab-case, unique over the whole catalogue
        title: ptxas is older than the PTX ISA version it is given
        category: environment        # the decision: category and failure mode ...
        failure_mode: toolchain-too-old
        # ... or `decide: concepts`: the family only supplies concept facts, and the concept rules
        # (rules/concept/) decide from their values (e.g. a required compute capability vs the device's)
        severity: error              # error (a failure is printed) | warning (facts only; no verdict alone) |
                                     # note (printed when nothing failed, at whatever log level the tool gives it:
                                     # XLA's timing notes at E; a line it matches is never a failure line)
        confidence: 0.85             # default 0.8
        priority: 45                 # default 45
        messages:                    # the tool's own wording, with provenance; placeholders kept
          - text: "Unsupported .version %s; current version is '%s'"
            source: "ptxas 13.0.88, strings of bin/ptxas"
            sample: "ptxas fatal   : Unsupported .version 8.7; current version is '8.4'"   # optional
        patterns:                    # Python regexes over one line; named groups carry concepts
          - 'Unsupported \\.version (?P<need_version>\\d+\\.\\d+); current version is .(?P<have_version>\\d+\\.\\d+)'
        concepts: {component: ptxas} # constant concept values when the family matches
        explain: {what: ..., why: ..., fix: ..., caveats: ...}   # fix: a text, or {default: ..., torch: ..., cuda: ...}
        references: [https://...]
        examples:                    # optional real excerpts: {log: ..., origin: owner/repo#N}
        candidates:                  # optional, with decide: concepts: the owners a message that does not
          - {category: kernel-logic, failure_mode: oob-global-access, confidence: 0.35}   # decide alone can
        # have, best first; kdiag abstains, lists them and gives explain.caveats as the check that decides
        # (diagnose.catalogue_candidates)

Named groups a pattern may capture (normalised by :mod:`diagnose.concepts`): ``need_cc``,
``have_cc``, ``component``, ``need_version``, ``have_version``, ``expected_dtype``, ``found_dtype``,
``expected_device``, ``found_device``, ``expected_shape``, ``found_shape`` (the operand's shape or size
an operation needed and the one it got: ``(2, 3)``, ``4x3``, ``42``), ``resource``, ``requested``, ``limit`` (sizes: ``0xc000``,
``48 KiB``...; counts: ``1024``), ``device_free`` and ``device_total`` (the GPU's free and total memory, in bytes, a
tool printed when it failed).  ``concepts:`` may also set any of them as constants;
``subject`` (what a check is about: ``input``, ``head_dim``) and ``unsupported`` (the value a tool
refuses: ``sm_75``, ``Half``) and ``supported`` (what a stated contract lists: ``fp16 and bf16``,
``[1, 2, 4, 8]``) are kept as printed.  ``unit: count`` tells that ``requested``/``limit`` are counts rather than sizes, and ``context``
names what a (warning) family says about the input (``fuzzer``, ``input-load-failed``, ``empty-input``);
``contract`` names the contract a check states (``contiguous``, ``aligned``, ``divisible``, ``device``)
and ``unsupported_kind`` what kind of thing a tool refuses (``arch``, ``dtype``).

What the values mean: ``need_cc`` is the compute capability the code, dtype or library feature
*requires*, ``have_cc`` the one the *device* (or the compile target) has — a toolkit's highest
known arch is not a ``have_cc`` (such families decide environment themselves).

A family with a category and failure mode becomes a rule (:func:`family_rules`), ranked like any
other; every family must still be checkable: each message's ``sample`` (or its template with the
placeholders filled) must match one of its patterns — :func:`lint_catalogue` says where not.
Matching is fast whatever the catalogue's size: one Aho-Corasick pass over the lowered text finds
each pattern's longest literal, and only those patterns run — each first tried only where a literal that
starts part of it stands (:mod:`diagnose.regex_anchor`).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from diagnose.catalogue_candidates import Candidate, parse_candidates
from diagnose.catalogue_text import STRING_FILLERS, fill_template
from diagnose.log_records import logged_low
from diagnose.regex_anchor import anchor_find, anchor_test
from diagnose.regex_literals import compiled, literal_options, lowered, searcher

CATALOGUE_DIR = Path(__file__).resolve().parent / "data" / "catalogue"
CATEGORIES = ("kernel-logic", "environment", "runtime-assumption")
SEVERITIES = ("error", "warning", "note")
GROUPS = (
    "need_cc",
    "have_cc",
    "component",
    "need_version",
    "have_version",
    "expected_dtype",
    "found_dtype",
    "expected_device",
    "found_device",
    "expected_shape",
    "found_shape",
    "resource",
    "requested",
    "limit",
    "device_free",
    "device_total",
    "subject",
    "unsupported",
    "supported",
)
CONSTANT_CONCEPTS = (*GROUPS, "unit", "context", "contract", "unsupported_kind")
FAMILY_KEYS = (
    "id",
    "title",
    "category",
    "failure_mode",
    "decide",
    "severity",
    "confidence",
    "priority",
    "messages",
    "patterns",
    "keywords",
    "concepts",
    "explain",
    "references",
    "examples",
    "notes",
    "candidates",
)
FILE_KEYS = ("tool", "versions", "families", "notes")
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class CatalogueProblem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Message:
    text: str
    source: str
    sample: str | None = None


@dataclass(frozen=True)
class Family:
    id: str
    tool: str
    title: str
    category: str | None  # None: decided by the concept rules
    failure_mode: str | None
    severity: str
    confidence: float
    priority: int
    messages: tuple[Message, ...]
    patterns: tuple[re.Pattern[str], ...]
    concepts: tuple[tuple[str, str], ...]
    explain: dict[str, str]
    references: tuple[str, ...]
    examples: tuple[dict[str, Any], ...]
    path: str
    line: int
    versions: tuple[tuple[str, str], ...] = ()
    fixes: tuple[
        tuple[str, str], ...
    ] = ()  # (framework, fix) when explain.fix is a mapping; explain["fix"]: its default
    # the owners the message can have when it does not decide alone, best first (diagnose.catalogue_candidates)
    candidates: tuple[Candidate, ...] = ()

    @property
    def decided(self) -> bool:
        return self.category is not None


_SECOND = operator.itemgetter(1)


@dataclass(frozen=True)
class Hit:
    family: Family
    line: int  # 1-based line of the text
    groups: dict[str, str]


@dataclass
class Catalogue:
    families: tuple[Family, ...]
    _anchors: Any = field(default=None, repr=False)  # ahocorasick.Automaton: lowered literal → index in _entries
    _always: list[tuple[Family, re.Pattern[str]]] = field(default_factory=list, repr=False)
    _entries: list[list[tuple[Family, re.Pattern[str]]]] = field(default_factory=list, repr=False)
    # each pattern's anchor test (diagnose.regex_anchor), made the first time the pattern is a candidate;
    # by id: the patterns are the families', which live as long as the catalogue
    _tests: dict[int, Callable[[str], bool] | None] = field(default_factory=dict, repr=False, compare=False)
    # where the pattern's anchor plan makes one: its search, tried only at its anchor's places (by id, the same)
    _finds: dict[int, Callable[[str], Any] | None] = field(default_factory=dict, repr=False, compare=False)
    # the search of a pattern without such a plan: tried only where a match can start, where the pattern says
    # (diagnose.regex_literals.searcher: the lines its ``(?m)^`` and their literals allow, or its leading literals)
    _searches: dict[int, Callable[[str], Any]] = field(default_factory=dict, repr=False, compare=False)

    # the patterns of the families whose severity is ``note`` in one search, made the first time it is asked
    _notes: list[Callable[[str], Any]] = field(default_factory=list, repr=False, compare=False)

    def note_line(self, line: str) -> bool:
        """Whether a family the tool prints when nothing failed (``severity: note``) matches ``line``."""
        if not self._notes:
            pats = [p.pattern for f in self.families if f.severity == "note" for p in f.patterns]
            self._notes.append(re.compile("|".join(f"(?:{p})" for p in pats) or "(?!)").search)
        return self._notes[0](line) is not None

    def __post_init__(self) -> None:
        table: dict[str, list[tuple[Family, re.Pattern[str]]]] = {}
        for fam in self.families:
            for rx in fam.patterns:
                # the literals every match holds, lowered: the text is searched lowered
                options = literal_options(rx, folded=True)
                if options is None:
                    self._always.append((fam, rx))
                    continue
                for anchor in options[0]:
                    table.setdefault(anchor, []).append((fam, rx))
        # each anchor maps to the index of its patterns in _entries: the text's pass collects the indices
        # in C (operator.itemgetter over the automaton's matches), in the order they are first found
        words = []
        for anchor, entries in table.items():
            words.append((anchor, len(self._entries)))
            self._entries.append(entries)
        self._anchors = _automaton(words)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (diagnose.rule_cache) without the automaton, which is built again from its anchors, and
        without the anchor tests, which are keyed by the patterns' ids in this process (nor the notes' search)."""
        dropped = ("_anchors", "_tests", "_finds", "_searches", "_notes")
        state = {k: v for k, v in self.__dict__.items() if k not in dropped}
        # in the order they were added (each one's value is its index in _entries)
        state["_anchor_words"] = sorted(self._anchors.items(), key=_SECOND) if self._anchors is not None else []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        words = state.pop("_anchor_words")
        self.__dict__.update(state, _anchors=_automaton(words), _tests={}, _finds={}, _searches={}, _notes=[])

    def __len__(self) -> int:
        return len(self.families)

    def get(self, family_id: str) -> Family | None:
        return next((f for f in self.families if f.id == family_id), None)

    def candidates(self, text: str) -> list[tuple[Family, re.Pattern[str]]]:
        out = list(self._always)
        if self._anchors is not None:
            tried: set[tuple[int, int]] = set()  # a pattern filed under several anchors is tried once
            for index in dict.fromkeys(map(_SECOND, self._anchors.iter(lowered(text)))):
                for fam, rx in self._entries[index]:
                    key = (id(fam), id(rx))
                    if key not in tried:
                        tried.add(key)
                        out.append((fam, rx))
        return out

    def scan(self, text: str) -> list[Hit]:
        """Every family whose patterns match a line of ``text``: the first hit of each, in text order."""
        hits: dict[str, Hit] = {}
        tests = self._tests
        finds = self._finds
        searches = self._searches
        for fam, rx in self.candidates(text):
            key = id(rx)
            find = finds[key] if key in finds else finds.setdefault(key, anchor_find(rx))
            if find is not None:
                m = find(text)  # the search, tried only where the anchor's literals stand
            else:
                test = tests[key] if key in tests else tests.setdefault(key, anchor_test(rx))
                if test is not None and not test(text):
                    continue  # the rest of the pattern matches at none of its anchor's places: no match
                search = searches[key] if key in searches else searches.setdefault(key, searcher(rx))
                m = search(text)  # tried only where a match can start, where the pattern says
            if m is None:
                continue
            if source_echo(text, m.start()):  # a traceback's quoted source: the exception line says it
                later = _later_match(rx, text, m, lambda g: source_echo(text, g.start()))
                m = later if later is not None else m
            if compiler_echo(text, m.start()):  # code a compiler quotes under its error: not a message
                m = _later_match(rx, text, m, lambda g: compiler_echo(text, g.start()))
                if m is None:
                    continue
            if compared(text, m.start(), m.end()):  # code testing for the error: a later report, or none
                m = _later_match(rx, text, m, lambda g: compared(text, g.start(), g.end()))
                if m is None:
                    continue
            if fam.tool == "message-shape" and _quiet(text, m.start()):  # a generic form inside a warning or INFO
                m = _later_match(rx, text, m, lambda g: _quiet(text, g.start()))
                if m is None:
                    continue
            line = text.count("\n", 0, m.start()) + 1
            old = hits.get(fam.id)
            if old is None or line < old.line:
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
                hits[fam.id] = Hit(family=fam, line=line, groups=groups)
        return sorted(hits.values(), key=lambda h: (h.line, h.family.id))


#: a Python traceback's frame line: the line after it quotes the frame's source
TRACEBACK_FRAME = re.compile(r'[ \t]*File "[^"\n]+", line \d+')


def source_echo(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is the source a Python traceback quotes under a frame line
    (``File "…/cpp_extension.py", line 1121, in _join_cuda_home`` then ``raise EnvironmentError('CUDA_HOME …'``):
    the message a ``raise`` line spells out is printed again, whole, in the exception line below it.

    >>> tb = 'File "x.py", line 3, in f\\n    raise OSError("no CUDA")\\nOSError: no CUDA'
    >>> source_echo(tb, tb.index("raise")), source_echo(tb, tb.index("OSError:"))
    (True, False)
    """
    start = text.rfind("\n", 0, pos) + 1
    if start == 0:
        return False
    prev = text.rfind("\n", 0, start - 1) + 1
    return TRACEBACK_FRAME.match(text, prev, start - 1) is not None


#: a compiler's diagnostic line, the one above the source it quotes: nvcc / EDG ``file.cu(78): error: …``, gcc and
#: clang ``file.cpp:10:5: error: …`` (``fatal error``, ``catastrophic error``, ``warning``, ``note``, ``remark``)
_DIAGNOSTIC = re.compile(r"(?:\(\d+\)|:\d+(?::\d+)?): (?:fatal |catastrophic )?(?:error|warning|note|remark)\b")
#: the caret line under a quoted source line (EDG ``     ^``; gcc ``      |     ^~~~``, after its ``   10 |`` gutter)
_CARET_LINE = re.compile(r"[ \t]*(?:\d*[ \t]*\|)?[ \t]*[\^~][\^~ \t]*")


def compiler_echo(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is source code a compiler quotes between its diagnostic line and the caret
    under the offending column (nvcc, EDG, gcc, clang all print the line so): what the code says, a TORCH_CHECK's
    message text or an error name in a condition, is not a report of this run; the diagnostic above it is.

    nvcc 13's lines for a load_inline source with ``TORCH_CHECK(A.is_cuda, "A must be a CUDA tensor")`` (the macro's
    expansion shortened here), and gcc's for an undeclared name:

    >>> log = 'k.cu(78): error: a pointer to a bound function may only be used to call the function\\n'
    >>> log += '      if (!(A.is_cuda)) { ::c10::detail::torchCheckFail( __func__, "A must be a CUDA tensor"))); };\\n'
    >>> log += '           ^\\n'
    >>> source_echo(log, log.index("A must")), compiler_echo(log, log.index("A must")), compiler_echo(log, 0)
    (False, True, False)
    >>> gcc = "m.cpp:3:5: error: 'x' was not declared in this scope\\n    3 |     x = 1;\\n      |     ^\\n"
    >>> compiler_echo(gcc, gcc.index("x = 1")), compiler_echo("RuntimeError: A must be a CUDA tensor\\n  ^\\n", 0)
    (True, False)
    """
    start = text.rfind("\n", 0, pos) + 1
    if start == 0:
        return False
    end = text.find("\n", pos)
    if end < 0:
        return False
    nxt = text.find("\n", end + 1)
    if _CARET_LINE.fullmatch(text, end + 1, len(text) if nxt < 0 else nxt) is None:
        return False
    prev = text.rfind("\n", 0, start - 1) + 1
    return _DIAGNOSTIC.search(text, prev, start - 1) is not None


#: a name as the operand of a comparison or a ``case`` label: source code that tests for an error
#: (``if (err == cudaErrorCooperativeLaunchTooLarge ||``, ``case CUDA_ERROR_NOT_READY:``), not a report of it
#: (the left operand a name or a parenthesis: never a rule of ===== or the ==PID== of a sanitizer's lines)
_COMPARED_BEFORE = re.compile(r"(?:(?:(?<![%\w=])[A-Za-z_]\w*|\))\s*[=!]=|\bcase)\s*\(?\s*$")
_COMPARED_AFTER = re.compile(r"^\s*\)?\s*[=!]=(?!=)\s*[A-Za-z_(]")


#: a Python warning's category before the message on its line ("UserWarning: ", "FutureWarning: ",
#: "file.py:12: UserWarning: "): what follows is what the program went on after
_WARNING_CATEGORY = re.compile(r"\b[A-Z]\w*Warning: ")


def warned(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is a Python warning whose message holds ``pos``: the program warned and went
    on (PyTorch's "UserWarning: Torch was not compiled with flash attention" before a run that finishes).  Only the
    message shapes (catalogue/message-shapes.yaml) are read so: a tool's own family may be the cause a warning
    states (PyTorch's "UserWarning: CUDA initialization: ... driver ... too old" before the failure it explains).

    >>> line = "attention.py:1279: UserWarning: 1Torch was not compiled with flash attention."
    >>> warned(line, line.index("Torch")), warned("RuntimeError: Torch was not compiled with flash attention", 14)
    (True, False)
    """
    start = text.rfind("\n", 0, pos) + 1
    w = _WARNING_CATEGORY.search(text, start, pos)
    return w is not None


def _quiet(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is a Python warning (:func:`warned`) or a glog record of warning or INFO
    severity, its second line included (:func:`diagnose.log_records.logged_low`: TensorFlow's INFO "could not
    open file to read NUMA node" goes on "Your kernel may have been built without NUMA support.")."""
    return warned(text, pos) or logged_low(text, pos)


def compared(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (an error's name) is compared against on its line, or is a ``case`` label:
    code that tests for the error (a submission's source printed with its result), not a report of it.

    >>> def at(line, name):
    ...     i = line.index(name)
    ...     return compared(line, i, i + len(name))
    >>> at("  if (coop_err == cudaErrorCooperativeLaunchTooLarge ||", "cudaError"), at("case CUDA_ERROR_X:", "CUDA_")
    (True, True)
    >>> at("GPUassert: cudaErrorIllegalAddress x.cu 12", "cudaError"), at("cudaErrorNoDevice: no device", "cudaError")
    (False, False)
    >>> at("========= Race reported between Write access", "Race"), at("==4021== ERROR: libFuzzer: deadly", "ERROR")
    (False, False)
    >>> at("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission", "ERR_")  # a profiler's banner
    False

    A compiler naming it in quotes on its diagnostic line (gcc's "did you mean 'CUFFT_INTERNAL_ERROR'?") or on the
    fix-it line under its caret (``      |              CUFFT_INTERNAL_ERROR``) is speaking of the source's names too:

    >>> at("s.cpp:97:14: error: 'CUFFT_PARSE_ERROR' was not declared; did you mean 'CUFFT_INTERNAL_ERROR'?", "CUFFT_I")
    True
    >>> at("   97 |   case CUFFT_PARSE_ERROR:\\n      |        ^~~~~~~~~~~\\n      |        CUFFT_INTERNAL_ERROR", "CUFFT_I")
    True
    >>> at("| 'charmap' codec can't encode character", "charmap"), at("cuFFT error: CUFFT_INTERNAL_ERROR", "CUFFT")
    (False, False)
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    m_end = end
    while m_end < line_end and (text[m_end].isalnum() or text[m_end] == "_"):
        m_end += 1  # the whole name, when the match ends inside it
    if _COMPARED_BEFORE.search(text, line_start, start) or _COMPARED_AFTER.match(text[m_end:line_end]):
        return True
    if line_start > 0 and _FIXIT_GUTTER.match(text, line_start, start):  # gcc's fix-it: the line under its caret
        prev = text.rfind("\n", 0, line_start - 1) + 1
        if _CARET_LINE.fullmatch(text, prev, line_start - 1):
            return True
    before = text[start - 1] if start > line_start else ""
    after = text[m_end] if m_end < line_end else ""
    return before in _QUOTES and after in _QUOTES and _DIAGNOSTIC.search(text, line_start, line_end) is not None


#: the quotes compilers put around a name they speak of (gcc's U+2018/U+2019 in a UTF-8 locale)
_QUOTES = frozenset("'\"`\u2018\u2019")
#: gcc's gutter before a source line or a fix-it suggestion, with nothing but blanks up to the name
_FIXIT_GUTTER = re.compile(r"[ \t]*\d*[ \t]*\|[ \t]*$")


def _later_match(
    rx: re.Pattern[str], text: str, m: re.Match[str], skip: Callable[[re.Match[str]], bool], tries: int = 4
) -> re.Match[str] | None:
    """The first match of ``rx`` after ``m``'s line that ``skip`` does not pass over (a comparison in code, a
    traceback's quoted source), within ``tries`` lines that hold one, or None."""
    for _ in range(tries):
        end = text.find("\n", m.end())
        if end < 0:
            return None
        got = rx.search(text, end + 1)
        if got is None or not skip(got):
            return got
        m = got
    return None


# --- loading ------------------------------------------------------------------------------------


def catalogue_files(root: Path = CATALOGUE_DIR) -> list[Path]:
    return sorted(p for p in root.glob("*.yaml") if p.is_file()) if root.is_dir() else []


def _node_lines(node: Any) -> list[int]:
    """1-based line of each item of the file's ``families`` list."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == "families" and isinstance(value, yaml.SequenceNode):
                return [item.start_mark.line + 1 for item in value.value]
    return []


def parse_file(path: Path, shown: str) -> tuple[list[Family], list[CatalogueProblem]]:
    problems: list[CatalogueProblem] = []

    def bad(line: int, msg: str) -> None:
        problems.append(CatalogueProblem(shown, line, msg))

    try:
        loader = _Loader(path.read_text(encoding="utf-8"))
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except (OSError, UnicodeDecodeError) as exc:
        bad(1, f"cannot read: {exc}")
        return [], problems
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        bad((mark.line + 1) if mark else 1, f"invalid YAML: {getattr(exc, 'problem', exc)}")
        return [], problems
    if not isinstance(data, dict):
        bad(1, "a catalogue file must be a mapping with tool, versions and families")
        return [], problems
    for key in data:
        if key not in FILE_KEYS:
            bad(1, f"unknown top-level field {key!r} (allowed: {', '.join(FILE_KEYS)})")
    tool = data.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        bad(1, "tool must be a non-empty string")
        tool = "?"
    versions = data.get("versions") or {}
    if not isinstance(versions, dict):
        bad(1, "versions must be a mapping of component to version")
        versions = {}
    items = data.get("families")
    if not isinstance(items, list) or not items:
        bad(1, "families must be a non-empty list")
        return [], problems
    lines = _node_lines(node)
    out = []
    vers = tuple((str(k), str(v)) for k, v in versions.items())
    for i, item in enumerate(items):
        ln = lines[i] if i < len(lines) else 1
        fam = _family(item, tool, vers, shown, ln, bad)
        if fam is not None:
            out.append(fam)
    return out, problems


def _family(item: Any, tool: str, versions: tuple, shown: str, ln: int, bad: Any) -> Family | None:
    if not isinstance(item, dict):
        bad(ln, "a family must be a mapping")
        return None
    errors: list[str] = []
    head = _head(item, errors.append)
    messages = _messages(item, errors.append)
    patterns = _patterns(item, errors.append)
    concepts, explain, refs, examples = _extras(item, errors.append)
    candidates = parse_candidates(item, errors.append)
    if errors:
        for msg in errors:
            bad(ln, f"family {head['id']!r}: {msg}")
        return None
    return Family(
        id=str(head["id"]),
        tool=str(tool),
        title=str(head["title"]).strip(),
        category=head["category"],
        failure_mode=head["failure_mode"],
        severity=str(head["severity"]),
        confidence=float(head["confidence"]),
        priority=int(head["priority"]),
        messages=tuple(messages),
        patterns=tuple(patterns),
        concepts=tuple((str(k), str(v)) for k, v in concepts.items()),
        explain={k: str(v).strip() for k, v in explain.items() if k != "fix"} | {"fix": _fix_default(explain)},
        fixes=_fixes(explain),
        references=tuple(refs),
        examples=tuple(examples),
        path=shown,
        line=ln,
        versions=versions,
        candidates=candidates,
    )


def _head(item: dict[str, Any], err: Callable[[str], object]) -> dict[str, Any]:
    """The fields, id, title, verdict (or ``decide: concepts``), severity, confidence and priority."""
    for key in item:
        if key not in FAMILY_KEYS:
            err(f"unknown field {key!r}")
    fid = item.get("id")
    if not isinstance(fid, str) or not KEBAB.match(fid):
        err(f"id must be kebab-case, got {fid!r}")
    title = item.get("title")
    if not isinstance(title, str) or not title.strip():
        err("title must be a non-empty string")
    decide = item.get("decide")
    category, mode = item.get("category"), item.get("failure_mode")
    if decide == "concepts":
        if category is not None or mode is not None:
            err("decide: concepts takes no category or failure_mode (the concept rules decide)")
    elif decide is not None:
        err(f"decide must be 'concepts' when given, got {decide!r}")
    else:
        if category not in CATEGORIES:
            err(f"category must be one of {', '.join(CATEGORIES)} (or set decide: concepts), got {category!r}")
        if not isinstance(mode, str) or not KEBAB.match(mode):
            err(f"failure_mode must be kebab-case, got {mode!r}")
    severity = item.get("severity", "error")
    if severity not in SEVERITIES:
        err(f"severity must be one of {', '.join(SEVERITIES)}, got {severity!r}")
    conf = item.get("confidence", 0.8)
    if not isinstance(conf, int | float) or isinstance(conf, bool) or not 0 <= conf <= 1:
        err(f"confidence must be between 0 and 1, got {conf!r}")
    prio = item.get("priority", 45)
    if not isinstance(prio, int) or isinstance(prio, bool):
        err(f"priority must be an integer, got {prio!r}")
    decided = decide is None
    return {
        "id": fid,
        "title": title,
        "category": category if decided else None,
        "failure_mode": mode if decided else None,
        "severity": severity,
        "confidence": conf,
        "priority": prio,
    }


def _messages(item: dict[str, Any], err: Callable[[str], object]) -> list[Message]:
    messages: list[Message] = []
    for m in item.get("messages") or []:
        if not isinstance(m, dict) or not isinstance(m.get("text"), str) or not isinstance(m.get("source"), str):
            err("each message needs text and source (where in the tool it was read)")
            continue
        sample = m.get("sample")
        messages.append(Message(text=m["text"], source=m["source"], sample=sample if isinstance(sample, str) else None))
    if not messages:
        err("messages must list the tool's own wording, each with its source")
    return messages


def _patterns(item: dict[str, Any], err: Callable[[str], object]) -> list[re.Pattern[str]]:
    patterns: list[re.Pattern[str]] = []
    for p in item.get("patterns") or []:
        if not isinstance(p, str):
            err(f"a pattern must be a string, got {p!r}")
            continue
        try:
            rx = compiled(p)
        except re.error as exc:
            err(f"bad pattern {p!r}: {exc}")
            continue
        unknown = set(rx.groupindex) - set(GROUPS)
        if unknown:
            err(f"pattern {p!r}: unknown named group(s) {', '.join(sorted(unknown))} (known: {', '.join(GROUPS)})")
        patterns.append(rx)
    if not patterns:
        err("patterns must be a non-empty list of regexes")
    return patterns


def _fix_problem(fix: Any) -> str | None:
    """What is wrong with a per-framework fix mapping (``default`` plus a text per framework), if anything."""
    from diagnose.rule_model import FIX_FRAMEWORKS

    if not isinstance(fix, dict):
        return "needs a text, or a mapping with a `default` text and one per framework"
    if not isinstance(fix.get("default"), str) or not fix["default"].strip():
        return "a mapping needs a `default` text"
    for fw, text in fix.items():
        if fw != "default" and fw not in FIX_FRAMEWORKS:
            return f"unknown framework {fw!r} (known: {', '.join(FIX_FRAMEWORKS)})"
        if not isinstance(text, str) or not text.strip():
            return f"fix.{fw} must be a non-empty string"
    return None


def _fix_default(explain: dict[str, Any]) -> str:
    fix = explain.get("fix")
    return str(fix.get("default") if isinstance(fix, dict) else fix or "").strip()


def _fixes(explain: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    fix = explain.get("fix")
    if not isinstance(fix, dict):
        return ()
    return tuple((str(fw), str(text).strip()) for fw, text in fix.items() if fw != "default")


def _extras(item: dict[str, Any], err: Callable[[str], object]) -> tuple[dict, dict, list, list]:
    """concepts, explain, references and examples; each one that is malformed comes back empty."""
    concepts = item.get("concepts") or {}
    if not isinstance(concepts, dict) or any(k not in CONSTANT_CONCEPTS for k in concepts):
        err(f"concepts may set only {', '.join(CONSTANT_CONCEPTS)}")
        concepts = {}
    explain = item.get("explain")
    if not isinstance(explain, dict) or not all(isinstance(explain.get(k), str) for k in ("what", "why")):
        err("explain needs what, why and fix")
        explain = {}
    elif not isinstance(explain.get("fix"), str) and _fix_problem(explain.get("fix")):
        err(f"explain.fix: {_fix_problem(explain.get('fix'))}")
        explain = {}
    refs = item.get("references") or []
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        err("references must be a list of strings")
        refs = []
    examples = item.get("examples") or []
    if not isinstance(examples, list) or not all(
        isinstance(e, dict) and isinstance(e.get("log"), str) for e in examples
    ):
        err("examples must be a list of {log, origin} mappings")
        examples = []
    return concepts, explain, refs, examples


def load_catalogue(root: Path | str | None = None) -> Catalogue:
    """Every family under ``root`` (default: the bundled catalogue); raise CatalogueError listing all problems."""
    base = Path(root) if root is not None else CATALOGUE_DIR
    families: list[Family] = []
    problems: list[CatalogueProblem] = []
    seen: dict[str, str] = {}
    for path in catalogue_files(base):
        fams, probs = parse_file(path, f"catalogue/{path.name}")
        problems.extend(probs)
        for fam in fams:
            if fam.id in seen:
                problems.append(
                    CatalogueProblem(fam.path, fam.line, f"duplicate family id {fam.id!r} (also in {seen[fam.id]})")
                )
                continue
            seen[fam.id] = fam.path
            families.append(fam)
    if problems:
        raise CatalogueError(problems)
    return Catalogue(families=tuple(families))


class CatalogueError(Exception):
    def __init__(self, problems: list[CatalogueProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def _automaton(words: Iterable[tuple[str, int]]) -> Any:
    """An Aho-Corasick automaton mapping each anchor to its index in ``Catalogue._entries``; None for none."""
    import ahocorasick

    auto = ahocorasick.Automaton()
    for anchor, index in words:
        auto.add_word(anchor, index)
    if len(auto) == 0:
        return None
    auto.make_automaton()
    return auto


_DEFAULT: list[Catalogue] = []  # the bundled catalogue, once loaded (or read with the rule base: use_default)


def default_catalogue() -> Catalogue:
    """The bundled catalogue, loaded once."""
    if not _DEFAULT:
        _DEFAULT.append(load_catalogue())
    return _DEFAULT[0]


def default_loaded() -> bool:
    """Whether this process has its bundled catalogue already (loaded, or read with the rule base)."""
    return bool(_DEFAULT)


def use_default(catalogue: Catalogue) -> Catalogue:
    """Make ``catalogue`` (the bundled one, as the rule cache kept it) the default, unless one is loaded
    already; the default either way."""
    if not _DEFAULT:
        _DEFAULT.append(catalogue)
    return _DEFAULT[0]


def lint_catalogue(catalogue: Catalogue) -> Iterator[CatalogueProblem]:
    """Each message (its sample, else its filled template) must match one of its family's patterns, and a
    pattern anchored at a line's start says so with ``(?m)``: a log is searched whole, so a bare ``^`` holds
    only at its first line, and a message printed below an exception's head would go unseen."""
    for fam in catalogue.families:
        for rx in fam.patterns:
            if rx.pattern.startswith("^") and not rx.flags & re.MULTILINE:
                yield CatalogueProblem(
                    fam.path,
                    fam.line,
                    f"family {fam.id!r}: pattern {rx.pattern[:60]!r} starts with '^' without (?m): it holds only "
                    "at the log's first line",
                )
        for msg in fam.messages:
            texts = [msg.sample] if msg.sample is not None else [fill_template(msg.text, f) for f in STRING_FILLERS]
            if not any(rx.search(t) for rx in fam.patterns for t in texts):
                what = (
                    f"sample {msg.sample!r}"
                    if msg.sample is not None
                    else f"template {msg.text!r} (placeholders filled)"
                )
                yield CatalogueProblem(fam.path, fam.line, f"family {fam.id!r}: no pattern matches the {what}")
        for ex in fam.examples:
            if not any(rx.search(ex["log"]) for rx in fam.patterns):
                yield CatalogueProblem(
                    fam.path, fam.line, f"family {fam.id!r}: no pattern matches example {ex.get('origin')!r}"
                )


def tools(catalogue: Catalogue) -> list[str]:
    return sorted({f.tool for f in catalogue.families})


def by_tool(families: Iterable[Family]) -> dict[str, list[Family]]:
    out: dict[str, list[Family]] = {}
    for f in families:
        out.setdefault(f.tool, []).append(f)
    return out
