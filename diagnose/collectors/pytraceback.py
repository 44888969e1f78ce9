"""Python tracebacks and exception lines → :class:`~diagnose.facts.PyFacts`.

Reads every ``Traceback (most recent call last):`` block of a log, chained ones
included ("During handling of the above exception, another exception occurred:",
"The above exception was the direct cause of the following exception:"), also when
each line carries a prefix (``[rank0]:`` from torch distributed, timestamps, pytest's
``E   ``).  A bare exception line with no traceback above it (``RuntimeError: CUDA
error: ...`` in a log) is still an exception.

A real sample (captured here: ``python -c "import torch; torch.zeros(1, device='cuda')"``
with the CPU build of torch 2.13):

    Traceback (most recent call last):
      File "<string>", line 1, in <module>
      File "<venv>/lib/python3.11/site-packages/torch/cuda/__init__.py", line 522, in _lazy_init
        raise AssertionError("Torch not compiled with CUDA enabled")
    AssertionError: Torch not compiled with CUDA enabled

>>> log = '''Traceback (most recent call last):
...   File "/home/u/kern.py", line 9, in <module>
...     out = add(x, y)
...   File "/usr/lib/python3.11/site-packages/torch/cuda/__init__.py", line 522, in _lazy_init
...     raise AssertionError("Torch not compiled with CUDA enabled")
... AssertionError: Torch not compiled with CUDA enabled'''
>>> f = parse(log)
>>> f.exc_type, f.exc_message, f.user_file, f.user_line, f.frame_count
('AssertionError', 'Torch not compiled with CUDA enabled', '/home/u/kern.py', 9, 2)

Qualified names keep their module; ``exc_type`` is the short name:

>>> f = parse('[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.')
>>> f.exc_type, f.exc_qualname
('OutOfMemoryError', 'torch.OutOfMemoryError')
>>> parse('all good, 3 tests passed') is None
True

JAX's notes around its filtered tracebacks end the message (real output of jax 0.10.2,
``scripts/capture-jax``, sample ``xla-cpu-out-of-memory``):

>>> f = parse('''Traceback (most recent call last):
...   File "/tmp/kdiag-capture/jax/xla_cpu_out_of_memory.py", line 4, in <module>
...     y = jnp.ones((2**44,), jnp.float32)   # 64 TiB
... jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 70368744177664 bytes.
... --------------------
... For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.''')
>>> f.exc_qualname, f.exc_message
('jax.errors.JaxRuntimeError', 'RESOURCE_EXHAUSTED: Out of memory allocating 70368744177664 bytes.')

The innermost *user* frame is the innermost one outside site-packages, dist-packages,
the standard library (``lib/pythonX.Y``), ``<frozen ...>``, ``<string>`` and compiled
Cython modules of installed packages (``cupy/_core/core.pyx``).

Which exception is "the" exception: the last one printed in the last traceback (Python
prints a chain cause-first, so that is the one that ended the program); with no
traceback at all, the first bare exception line (later ones are usually echoes).
``exc_types``/``exc_messages`` list every exception seen, in print order.
"""

from __future__ import annotations

import re

from diagnose.collectors.gate_words import gate
from diagnose.facts import Frame, PyFacts
from diagnose.log_records import logged_traceback

_TB_HEAD = "Traceback (most recent call last):"
_CHAIN_MARKERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
# notes jax prints around its filtered tracebacks; they end an exception's message
_JAX_NOTES = (
    "-" * 20,
    "For simplicity, JAX has removed its internal frames",
    "The preceding stack trace is the source of the JAX operation",
)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')
# an exception line at the end of a traceback: a dotted name, optionally ": message"
_EXC_LINE = re.compile(r"^(?P<qual>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)(?::(?: (?P<msg>.*)|$)|$)")
# a bare exception line somewhere in a log: the name must look like an exception class; it may follow prose in
# another script with no space between ("运行失败，提示triton.runtime.errors.OutOfResources: ...": CJK text does not
# separate words with spaces)
_EXC_SUFFIX = r"(?:Error|Exception|ExceptionGroup|Exhausted|OutOfResources|Failure|Interrupt|Expired|Exit)"
_BARE_EXC = re.compile(
    r"(?:^|(?<=[\s:\]|>(\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]))(?P<qual>(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*?)?"
    + _EXC_SUFFIX
    + r"(?:_\w+)?)"
    r":(?: (?P<msg>.*)|$)"
)
# "Error: ..." alone is how many tools start a message; only a class name is an exception
_NOT_A_CLASS = frozenset(("Error", "Exception", "Exhausted", "Failure", "Interrupt", "Expired", "Exit"))
_BARE_HINTS = ("Error", "Exception", "Exhausted", "OutOfResources", "Failure", "Interrupt", "Expired", "Exit")
_LIB_PATH = re.compile(
    r"site-packages|dist-packages|[/\\]lib[/\\]python\d+(?:\.\d+)?[/\\]|[/\\]Lib[/\\]|^<frozen |^<string>$|^<stdin>$"
)
_MAX_MESSAGE_LINES = 40
#: a line that unpacks a tensor's dimensions into names: ``B, C, H, W = x.shape``, ``sn, sc = w.stride()``,
#: ``(m, k) = a.size()`` (what Python's "too many / not enough values to unpack" then says is a rank the code assumed)
_UNPACK_DIMS = re.compile(
    r"\s*\(?\s*\*?\w+\s*(?:,\s*\*?\w+\s*)+,?\s*\)?\s*=\s*[\w.\[\]]+\.(?:shape|size\(\)|stride\(\))\s*(?:#.*)?$"
)
_MAX_EXCEPTIONS = 100
#: Triton's launcher reading the grid (triton 3.7.1 runtime/jit.py ``grid_size = len(grid)``, runtime/interpreter.py
#: ``assert len(grid) <= 3``; 2.x launchers also index ``grid[0]``), and CPython's TypeError for a value that is not
#: a sequence there (an int grid: ``kernel[n](...)`` for ``kernel[(n,)](...)``)
_GRID_READ = re.compile(r"\blen\(grid\)|\bgrid\[0\]")
_NOT_SEQUENCE = re.compile(r"object of type '\w+' has no len\(\)|'\w+' object is not subscriptable")
_MAX_MESSAGE_CHARS = 4000


def _prefix_matcher(prefix: str) -> re.Pattern[str] | None:
    """A regex for the per-line prefix a traceback head carried (digits generalised)."""
    if not prefix.strip():
        return None
    if "rank" in prefix:  # interleaved ranks: only the same rank's lines belong to this traceback
        return re.compile(re.escape(prefix))
    pattern = "".join(r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", prefix))
    return re.compile(pattern)


def _is_library(path: str) -> bool:
    if _LIB_PATH.search(path):
        return True
    # Cython frames of installed packages print a relative module path (cupy/_core/core.pyx)
    return path.endswith((".pyx", ".pxd")) and not path.startswith(("/", "."))


class _Exc:
    __slots__ = ("line", "message", "qual")

    def __init__(self, qual: str, message: str, line: int) -> None:
        self.qual = qual
        self.message = message
        self.line = line


class _Section:
    """One ``Traceback ...`` section: its frames and the exception printed after them."""

    __slots__ = ("exc", "frames")

    def __init__(self) -> None:
        self.frames: list[tuple[Frame, int]] = []
        self.exc: _Exc | None = None


class _Body:
    """The lines after a traceback head with their prefix removed, produced as the parser asks for them.

    Lazy, so a log with thousands of tracebacks does not un-prefix thousands of lines for each.
    """

    __slots__ = ("end", "idx", "items", "j", "lines", "matcher", "ranked")

    def __init__(self, lines: list[str], head: int, prefix: str) -> None:
        self.lines = lines
        self.j = head
        self.end = min(len(lines), head + 5000)
        self.matcher = _prefix_matcher(prefix)
        self.ranked = bool(prefix.strip()) and "rank" in prefix
        self.items: list[str] = []
        self.idx: list[int] = []  # 0-based line index in ``lines`` of each item

    def has(self, k: int) -> bool:
        while len(self.items) <= k and self.j < self.end:
            s = self.lines[self.j]
            self.j += 1
            if self.matcher is not None:
                m = self.matcher.match(s)
                if m is None:
                    # some logs (copied from terminals) carry a stray space before the prefix
                    s = s.lstrip()
                    m = self.matcher.match(s)
                if m:
                    s = s[m.end() :]
                elif self.ranked:
                    continue  # another rank's line interleaved: skip it
            self.items.append(s)
            self.idx.append(self.j - 1)
        return k < len(self.items)

    def __getitem__(self, k: int) -> str:
        return self.items[k] if self.has(k) else ""


def _message_continuation(body: _Body | list[str], start: int) -> tuple[list[str], int]:
    """Lines after an exception line that belong to its message (until a blank line or a new block)."""
    out: list[str] = []
    i = start
    while (body.has(i) if isinstance(body, _Body) else i < len(body)) and len(out) < _MAX_MESSAGE_LINES:
        s = body[i]
        if not s.strip() or s.startswith(_TB_HEAD) or s.strip() in _CHAIN_MARKERS or s.strip().startswith(_JAX_NOTES):
            break
        out.append(s.rstrip())
        i += 1
    return out, i


def _frame(body: _Body, i: int, fm: re.Match[str]) -> Frame:
    """A ``File "...", line N, in func`` line, with the source line under it when printed."""
    code = None
    if body.has(i + 1) and body[i + 1].startswith("    ") and not _FRAME.match(body[i + 1]):
        code = body[i + 1].strip()
    return Frame(file=fm["file"], line=int(fm["line"]), func=fm["func"], code=code)


def _exception_line(stripped: str, after_frame: bool) -> re.Match[str] | None:
    """``pkg.Error: message`` that ends a stack; not "raise" / "return" alone (an unindented source line)."""
    em = _EXC_LINE.match(stripped)
    if em is not None and after_frame and ":" not in stripped and "." not in em["qual"] and em["qual"].islower():
        return None
    return em


def _parse_group(lines: list[str], head: int, prefix: str) -> tuple[list[_Section], bool, int]:
    """Parse a traceback group (chain) starting at ``head``; returns sections, chained flag, next index."""
    body = _Body(lines, head, prefix)
    idx = body.idx
    sections: list[_Section] = []
    chained = False
    i = 0
    cur: _Section | None = None
    after_frame = False
    after_marker = False
    while body.has(i):
        s = body[i]
        stripped = s.strip()
        if after_marker and (stripped == "..." or _FRAME.match(s)) and not stripped.startswith(_TB_HEAD):
            # pasted logs often elide the next section's head ("..."): its frames still belong to the chain
            cur = _Section()
            sections.append(cur)
            after_marker = False
            if stripped == "...":
                i += 1
                continue
        if stripped.startswith(_TB_HEAD) and (cur is None or cur.exc is not None or not cur.frames):
            cur = _Section()
            sections.append(cur)
            i += 1
            continue
        if cur is None:
            break
        fm = _FRAME.match(s)
        if fm and cur.exc is None:
            cur.frames.append((_frame(body, i, fm), idx[i]))
            after_frame = True
            i += 1
            continue
        if cur.exc is None:
            if (
                s.startswith((" ", "\t"))
                or not stripped
                or stripped == "..."
                or stripped.startswith("[Previous line repeated")
            ):
                i += 1  # source line, caret line (^^^ / ~~~), elision or blank line inside the stack
                continue
            em = _exception_line(stripped, after_frame)
            if em is None:
                if after_frame:  # a source line that lost its indentation (pasted logs)
                    after_frame = False
                    i += 1
                    continue
                break  # not a traceback any more
            msg_first = em["msg"] or ""
            more, nxt = _message_continuation(body, i + 1)
            message = "\n".join([msg_first, *more]).strip() if more else msg_first.strip()
            cur.exc = _Exc(em["qual"], message[:_MAX_MESSAGE_CHARS], idx[i] + 1)
            after_frame = False
            i = nxt
            continue
        # after an exception: a chain marker continues the group; anything else ends it
        if not stripped:
            i += 1
            continue
        if stripped in _CHAIN_MARKERS:
            chained = after_marker = True
            i += 1
            continue
        break
    end = idx[i] if body.has(i) else (idx[-1] + 1 if idx else head + 1)
    return [sec for sec in sections if sec.exc is not None or sec.frames], chained, max(end, head + 1)


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_bare_hint = gate(_BARE_HINTS)


#: where the standard library raises again, in the parent, an exception a worker process or thread raised
#: (multiprocessing's ``AsyncResult.get``: ``raise self._value``; concurrent.futures' ``Future.result``:
#: ``raise self._exception``): the worker's own traceback, printed before it (multiprocessing's RemoteTraceback, a
#: chained cause), holds the frames that failed
RERAISE_SITE = re.compile(r"(?:^|[/\\])(?:multiprocessing[/\\]pool|concurrent[/\\]futures[/\\]_base)\.py$")


_FRAME_FILE = re.compile(r'File "(?P<file>[^"]+)", line \d+')


def reraised_from_worker(text: str) -> int | None:
    """Where the last traceback of ``text`` (the one its last readable frame is in) begins, when it ends in the standard
    library raising a worker's exception again (:data:`RERAISE_SITE`) after the worker's own traceback was printed;
    None otherwise.  What comes before that
    offset holds the frames that failed (the location collector reads only that part).

    >>> log = 'Traceback (most recent call last):\\n  File "w.py", line 3, in f\\nTypeError: x\\n\\n' \\
    ...       'Traceback (most recent call last):\\n  File "/usr/lib/python3.12/multiprocessing/pool.py", line 774, in get\\n' \\
    ...       'TypeError: x\\n'
    >>> log[: reraised_from_worker(log)].count("Traceback")
    1
    >>> reraised_from_worker('Traceback (most recent call last):\\n  File "w.py", line 3, in f\\nTypeError: x\\n') is None
    True
    """
    if _TB_HEAD not in text or ("multiprocessing" not in text and "concurrent" not in text):
        return None  # no re-raise site to look for (most logs: no second pass over them)
    frame = next(reversed(list(_FRAME_FILE.finditer(text))), None)  # the log's last readable frame
    if frame is None or not RERAISE_SITE.search(frame["file"]):
        return None
    head = text.rfind(_TB_HEAD, 0, frame.start())  # the traceback it ends
    return head if head > 0 and text.rfind(_TB_HEAD, 0, head) >= 0 else None


def _worker_section(groups: list[list[_Section]], main: _Exc | None) -> _Section | None:
    """The section of the worker's traceback when the last one ends in the standard library re-raising a worker's
    exception (:data:`RERAISE_SITE`): the latest earlier section with frames and the same exception, else None."""
    final = groups[-1][-1]
    if main is None or not final.frames or not RERAISE_SITE.search(final.frames[-1][0].file):
        return None
    earlier = [sec for group in groups for sec in group if sec is not final]
    for sec in reversed(earlier):
        if sec.frames and sec.exc is not None and sec.exc.qual == main.qual:
            return sec
    return None


def parse(text: str) -> PyFacts | None:
    """Python exceptions of ``text``, or ``None`` when it shows none."""
    has_tb = _TB_HEAD in text
    if not has_tb and not _has_bare_hint(text):
        return None
    lines = text.splitlines()
    groups: list[list[_Section]] = []
    chained_any = False
    excs: list[_Exc] = []
    bare_excs: list[_Exc] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if has_tb and _TB_HEAD in line:
            prefix = line[: line.index(_TB_HEAD)]
            sections, chained, nxt = _parse_group(lines, i, prefix)
            if sections and logged_traceback(lines, i):  # caught, logged under a warning, and gone on from
                i = nxt
                continue
            if sections:
                groups.append(sections)
                chained_any = chained_any or chained
                excs.extend(sec.exc for sec in sections if sec.exc is not None)
            i = nxt
            continue
        if ":" in line and any(h in line for h in _BARE_HINTS) and len(line) < 20000:
            m = _BARE_EXC.search(line)
            if m and m["qual"] in _NOT_A_CLASS:
                m = None
            if m and not _FRAME.match(line):
                more, nxt = _message_continuation(lines, i + 1) if line.startswith(m["qual"]) else ([], i + 1)
                first = (m["msg"] or "").strip()
                message = "\n".join([first, *more]).strip() if more else first
                exc = _Exc(m["qual"], message[:_MAX_MESSAGE_CHARS], i + 1)
                excs.append(exc)
                bare_excs.append(exc)
                i = nxt
                continue
        i += 1
    if not excs and not groups:
        return None

    main: _Exc | None = None
    last_frames: list[tuple[Frame, int]] = []
    user: tuple[Frame, int] | None = None
    if groups:
        last = groups[-1]
        for sec in reversed(last):
            if sec.exc is not None:
                main = sec.exc
                break
        last_frames = last[-1].frames
        worker = _worker_section(groups, main)
        if worker is not None:  # re-raised in the parent: the worker's frames are the failure's
            last, last_frames = [worker], worker.frames
        for sec in reversed(last):  # the final section first, then its causes
            for fr, ln in reversed(sec.frames):
                if not _is_library(fr.file):
                    user = (fr, ln)
                    break
            if user:
                break
    if main is None:
        main = bare_excs[0] if bare_excs else (excs[-1] if excs else None)

    if len(excs) > _MAX_EXCEPTIONS:  # a log of thousands of tracebacks: keep the first ones and the last
        excs = [*excs[: _MAX_EXCEPTIONS - 1], excs[-1]]
    cited = sorted({e.line for e in excs} | ({user[1] + 1} if user else set()))
    return PyFacts(
        lines=tuple(cited),
        exc_type=main.qual.rsplit(".", 1)[-1] if main else None,
        exc_qualname=main.qual if main else None,
        exc_message=main.message if main else None,
        exc_types=tuple(e.qual.rsplit(".", 1)[-1] for e in excs),
        exc_messages=tuple(e.message for e in excs),
        chained=chained_any,
        user_file=user[0].file if user else None,
        user_line=user[0].line if user else None,
        user_func=user[0].func if user else None,
        unpacks_tensor_dims=bool(user and user[0].code and _UNPACK_DIMS.match(user[0].code)),
        launch_grid_not_sequence=_launch_grid_not_sequence(main, last_frames),
        frame_count=len(last_frames),
        frames=tuple(fr for fr, _ in last_frames),
    )


def _launch_grid_not_sequence(main: _Exc | None, frames: list[tuple[Frame, int]]) -> bool:
    """The last exception is CPython's TypeError for a non-sequence, raised in Triton's own launcher where it reads
    the grid: the kernel was launched with a grid that is not a tuple (or a callable returning one)."""
    if main is None or main.qual.rsplit(".", 1)[-1] != "TypeError" or not _NOT_SEQUENCE.search(main.message or ""):
        return False
    if not frames:
        return False
    inner = frames[-1][0]
    return "triton" in inner.file.replace("\\", "/") and bool(inner.code and _GRID_READ.search(inner.code))
