"""What a pipeline or a copy adds to a log, taken off before the collectors read it.

A failure log rarely reaches kdiag as the program printed it.  The pipeline that carried it adds
terminal colours and a prefix per line, and the collectors' patterns (anchored at a line's start, or
reading ``Error: ...`` as the line's first word) would miss the same failure under another pipeline.
The prefixes come from a small family of tools, each with a fixed shape:

- ANSI escape sequences (colours, cursor moves, hyperlinks: pytest, rich, ninja, CI consoles);
- ISO-8601 time stamps (GitHub Actions raw logs, ``docker logs --timestamps``, ``kubectl logs
  --timestamps``);
- syslog / journald lines (``Dec 05 11:13:02 host python3[4242]: ``);
- Open MPI's ``--tag-output`` (``[1,0]<stderr>:``);
- a worker process's tag from Ray and vLLM (``(RayWorkerWrapper pid=4242, ip=10.0.0.2) ``);
- torchrun's ``--tee`` (``[default0]:``) and torch.distributed's error lines (``[rank3]:``);
- pytest's ``E`` column before an exception's lines (``E       RuntimeError: ...``), its indentation
  inside the message kept;
- and shapes that are only prefixes when (nearly) every line carries the same one: docker compose's
  service column (``trainer-1  | ``), pdsh's host name (``worker-3: ``, DeepSpeed's multi-node
  launcher) and srun's task label (``0: ``), and a Markdown quote (``> ``, a log quoted in a report).

Two things a copy adds inside the text are undone as well: HTML entities (a log taken from a web page's
source: ``&lt;module&gt;``, ``&quot;``) and typographic quotes (``‘x’``, ``“x”``: GCC prints them in a UTF-8
locale, and forums and word processors turn plain quotes into them), read as the plain characters.  A line that
is one Markdown code span (```AssertionError: ...```, a report quoting an error inline) is read as its content;
backticks inside a line stay, since tools quote names with them.

A carriage return inside a line is a terminal's overwrite (a progress bar redrawn: tqdm, pip, a compiler's
status line): the line reads as what the terminal showed last, the text after the last one. A tqdm bar left
unterminated, with the next output (a traceback's first line) written right after it, is taken off that line.

Only text inside a line is removed or replaced, so line numbers stay those of the input, with two exceptions:
a text whose only line breaks are carriage returns (an old Mac file) is read with them as line breaks, and a log
that is a single quoted string (a whole log as Python prints a string or bytes, ``b'...\\n...'``, or as a JSON
string, alone or after a short label) is read with its escaped line breaks as line breaks; there the line numbers count
the lines read.  A log without any of these comes back unchanged, at the cost of a few substring tests and one
search.
"""

from __future__ import annotations

import html
import re
from collections import Counter

# CSI (colours, cursor), OSC (titles, hyperlinks; ended by BEL or ST), charset and keypad selections
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[()][A-Za-z0-9]|[=>78])")

# the prefixes whose shape no program's own output has at a line's start; several may stack
_STAMP = (
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?[ \t]"  # ISO-8601
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+ [\w.@/:-]+(?:\[\d+\])?:[ \t]"  # syslog / journald
    r"|\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:[ \t]?"  # Open MPI --tag-output
    r"|\((?:[^()\n]{0,80}?[ ,])?pid=\d+[^()\n]{0,60}\)[ \t]"  # Ray / vLLM worker
    r"|\[(?:default|rank)\d+\]:[ \t]?"  # torchrun: --tee, and torch.distributed's error lines
)
_STAMPED = re.compile(rf"^(?:{_STAMP})+", re.MULTILINE)

# prefixes only when one and the same name stands on (nearly) every line: (name, what follows it)
_COMMON = (
    (r"[\w.-]{1,63}", r" *\| ?"),  # docker compose's service column
    (r"(?:[\w-]{0,62}\d[\w-]{0,62}|localhost)(?:\.[\w-]{1,63})*", r": "),  # pdsh's host (a digit in it)
    (r">(?!>)", r" ?"),  # a Markdown quote (not a REPL's ">>> ")
)
_COMMON_SHAPES = tuple((re.compile(rf"({name}){tail}"), tail) for name, tail in _COMMON)
# lines a sample takes to decide, and the share of them that must carry the same prefix
_SAMPLE_LINES = 200
_SHARE = 0.8


def _same_name(lines: list[str], shape: re.Pattern[str]) -> str | None:
    """The name that starts at least ``_SHARE`` of ``lines`` (two at least) in ``shape``."""
    names = Counter(m.group(1) for m in map(shape.match, lines) if m)
    if not names:
        return None
    name, n = names.most_common(1)[0]
    return name if n >= 2 and n >= _SHARE * len(lines) else None


def _strip_common(text: str) -> str:
    head = text.lstrip()[:300]
    first = head.split("\n", 1)[0]
    shapes = [(shape, tail) for shape, tail in _COMMON_SHAPES if shape.match(first)]
    if not shapes:  # a decorated log is decorated from its first line
        return text
    lines = [ln for ln in text[: 64 << 10].split("\n", _SAMPLE_LINES)[:_SAMPLE_LINES] if ln.strip()]
    for shape, tail in shapes:
        name = _same_name(lines, shape)
        if name is not None:
            return re.sub(rf"(?m)^{re.escape(name)}{tail}", "", text)
    return text


# pytest's column: "E" and the spaces that line the message up with the failing statement
_PYTEST_E = re.compile(r"^E( {3,})(?=\S)", re.MULTILINE)


def _strip_pytest(text: str) -> str:
    """pytest's ``E`` column off, by the narrowest one in the log, so a message's own indentation stays."""
    widths = {len(m.group(1)) for m in _PYTEST_E.finditer(text)}
    if not widths:
        return text
    return re.sub(rf"(?m)^E {{{min(widths)}}}", "", text)


# an HTML character reference a log's own text would not hold: named ones of the five HTML escapes, numeric ones
_ENTITY = re.compile(r"&(?:lt|gt|quot|amp|apos|#\d{2,4}|#x[0-9a-fA-F]{2,4});")
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
)


# a line holding a whole log as a quoted string: three or more escaped line breaks in it, after a label this long
_ESCAPED_BREAKS = 3
_LABEL = 40
_ESCAPES = {"n": "\n", "t": "\t", "r": "", "\\": "\\", "'": "'", '"': '"'}
_ESCAPE = re.compile(r"\\([ntr\\'\"])")


def _unquote_whole_log(text: str) -> str:
    """A log of one or two lines, one of which is a quoted string holding the rest (after at most a short label:
    ``stderr=``), with its escapes read; a message that quotes a value with line breaks in it stays as it is."""
    if "\\n" not in text:
        return text
    lines = text.split("\n")
    if sum(1 for ln in lines if ln.strip()) > 2:
        return text
    return "\n".join(_unquoted(ln) or ln for ln in lines)


# what stands before the string (a label: "stderr=", "Output: "), its bytes prefix and quote, its body
_QUOTED = re.compile(r"^(?P<pre>.*?)(?<!\w)b?(?P<q>['\"])(?P<body>.*)(?P=q)[\s,)\]}]*$")


def _unquoted(line: str) -> str | None:
    """``line`` read as the whole log it quotes (its label on a line of its own), else None."""
    m = _QUOTED.match(line)
    if m is None or len(m.group("pre")) > _LABEL or m.group("body").count("\\n") < _ESCAPED_BREAKS:
        return None
    pre, body = m.group("pre"), _ESCAPE.sub(lambda e: _ESCAPES[e.group(1)], m.group("body"))
    return f"{pre.rstrip()}\n{body}" if pre.strip() else body


# tqdm's bar ("desc:  37%|###7      | 37/100 [00:03<00:05, 11.2it/s]") with text written right after it
_BAR = re.compile(
    r"^(?:[^|\n]{0,60}: )?\s*\d{1,3}%\|[^|\n]{0,200}\|\s*[\d.]+[kMGT]?/[\d.?]+[kMGT]?\s*\[[^\]\n]{0,80}\](?=.*\S)",
    re.MULTILINE,
)


def _overwrites(text: str) -> str:
    """Each line as the terminal left it: the text after its last carriage return (a lone one ends the line)."""
    if "\n" not in text.rstrip("\r"):
        return text.replace("\r", "\n")
    out = []
    for line in text.split("\n"):
        if "\r" in line:
            parts = [p for p in line.split("\r") if p.strip()]
            line = parts[-1] if parts else ""
        out.append(line)
    return "\n".join(out)


#: Markdown's bold, which a report's author puts around the words that matter ("**Tried to allocate 712.03 GiB**"):
#: a pair of double asterisks around text on one line, each at a word's edge; code's own (``int **p``, ``x**2``,
#: ``**kwargs``) is not a pair so placed
_BOLD = re.compile(r"(?<![\w*])\*\*(?=[^\s*])([^*\n]{1,300}?)(?<=[^\s*])\*\*(?![\w*])")

#: a whole line that is one Markdown code span (a report quoting the error inline): its content, indentation kept
_CODE_SPAN_LINE = re.compile(r"^([ \t]*)`([^`\n]+)`[ \t]*$", re.MULTILINE)


def undecorate(text: str) -> str:
    """``text`` without the colours and per-line prefixes a pipeline added (see the module's list).

    >>> undecorate("2026-12-05T11:13:02.1234567Z RuntimeError: CUDA error: out of memory")
    'RuntimeError: CUDA error: out of memory'
    >>> undecorate("\\x1b[31mptxas error\\x1b[0m   : Entry function uses too much shared data")
    'ptxas error   : Entry function uses too much shared data'
    >>> undecorate("(RayWorkerWrapper pid=4242, ip=10.0.0.2) RuntimeError: CUDA error: an illegal memory access")
    'RuntimeError: CUDA error: an illegal memory access'
    >>> undecorate("File &quot;x.py&quot;, line 3, in &lt;module&gt;")
    'File "x.py", line 3, in <module>'
    >>> undecorate("error: \u2018THCState\u2019 was not declared in this scope")
    "error: 'THCState' was not declared in this scope"
    >>> undecorate("stderr=b'ptxas info: x\\\\nptxas error: y\\\\nline 3\\\\nend'")
    'stderr=\\nptxas info: x\\nptxas error: y\\nline 3\\nend'
    >>> undecorate("'========= Invalid __global__ read\\\\n=========  at k\\\\n========= by thread\\\\n'")
    '========= Invalid __global__ read\\n=========  at k\\n========= by thread\\n'
    >>> undecorate(" 37%|###   | 37/100\\r100%|######| 100/100\\nRuntimeError: x")
    '100%|######| 100/100\\nRuntimeError: x'
    >>> undecorate(" 37%|###7      | 37/100 [00:03<00:05, 11.2it/s]Traceback (most recent call last):")
    'Traceback (most recent call last):'
    >>> undecorate("worker-3: a\\nworker-3: b\\nworker-3: RuntimeError: x")
    'a\\nb\\nRuntimeError: x'
    >>> undecorate("E       RuntimeError: CUDA error: x\\nE         CUDA kernel errors might be reported")
    'RuntimeError: CUDA error: x\\n  CUDA kernel errors might be reported'
    >>> undecorate("> RuntimeError: a\\n> b\\n>\\n> c")
    'RuntimeError: a\\nb\\n\\nc'
    >>> undecorate("RuntimeError: CUDA out of memory. **Tried to allocate 712.03 GiB**. GPU 0 has a total")
    'RuntimeError: CUDA out of memory. Tried to allocate 712.03 GiB. GPU 0 has a total'
    >>> undecorate("`AssertionError: table t has local_cols=1 not divisible by 4.`")
    'AssertionError: table t has local_cols=1 not divisible by 4.'
    >>> undecorate("Did you mix up `hl.tile([x])` and `hl.tile(x)`?")  # names quoted inside a line stay
    'Did you mix up `hl.tile([x])` and `hl.tile(x)`?'
    >>> undecorate("def f(*args, **kwargs): return x**2 + y**2")
    'def f(*args, **kwargs): return x**2 + y**2'
    >>> undecorate("RuntimeError: a\\nRuntimeError: b\\nRuntimeError: c")  # a program's own words stay
    'RuntimeError: a\\nRuntimeError: b\\nRuntimeError: c'
    """
    text = _unquote_whole_log(text)
    if "\r" in text:
        text = _overwrites(text)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "%|" in text:
        text = _BAR.sub("", text)
    if "&" in text and _ENTITY.search(text):
        plain = html.unescape(text)
        if plain.count("\n") == text.count("\n"):  # an encoded line break would move every line after it
            text = plain
    if any(q in text for q in "\u2018\u2019\u201c\u201d\u201a\u201e\u201b"):
        text = text.translate(_QUOTES)
    if "**" in text:
        text = _BOLD.sub(r"\1", text)
    if "`" in text:
        text = _CODE_SPAN_LINE.sub(r"\1\2", text)
    if _STAMPED.search(text):
        text = _STAMPED.sub("", text)
    if "\nE  " in text or text.startswith("E  "):
        text = _strip_pytest(text)
    common = _strip_common(text)
    # a time stamp under a prefix taken off only now (docker compose's service column before `--timestamps`' stamp)
    if common is not text and _STAMPED.search(common):
        return _STAMPED.sub("", common)
    return common
