"""How a process ended, as logs print it → :class:`~diagnose.facts.ExitFacts`.

:func:`parse` reads what shells, Python, launchers and the kernel print: bash's job
reports (``Segmentation fault (core dumped)``, ``Aborted``, ``Killed``), exit codes
(``exit code 139``, ``exited with code -11``, ``returned non-zero exit status -6``,
``died with <Signals.SIGABRT: 6>``, torchrun's ``exitcode: -11``), faulthandler's ``Fatal
Python error: Segmentation fault``, the kernel's OOM killer (``Out of memory: Killed
process 1234 (python)``) and timeouts (``TimeoutExpired``, ``timed out after 10 seconds``).
:func:`merge` combines that with an exit status a runner or a result file recorded.

Codes are kept as printed; the signal is derived: a negative code is a signal number
(Python's convention), a code 128+N (shells) is signal N.

A real sample (captured here: bash 5.2 running a Python that dereferences NULL, then
``echo exit code $?``):

    bash: line 1:  8225 Segmentation fault      <venv>/bin/python -c 'import ctypes; ctypes.string_at(0)'
    exit code 139

>>> f = parse("bash: line 1:  8225 Segmentation fault      python -c 'x'\\nexit code 139")
>>> f.signal, f.code, f.lines
('SIGSEGV', 139, (1, 2))
>>> parse("Aborted (core dumped)").core_dumped
True
>>> parse("[3017506.736861] Killed process 25635 (python) total-vm:55518724kB").oom_killed
True
>>> merge(None, code=-11, signal=None, timed_out=False).signal
'SIGSEGV'

The failed assertion a process printed before it ended is kept, with where it stands (glibc's
``assert``, assert/assert.c: ``"%s%s%s:%u: %s%sAssertion `%s' failed."``, a long function signature
wrapping it over lines; a CUDA device assert's ``Assertion `cond` failed.``), and its lines are cited:

>>> f = parse("python: k.cu:153: void f(int): Assertion `softmax_success' failed.\\nAborted")
>>> f.signal, f.assertion, f.assertion_at, f.lines
('SIGABRT', 'softmax_success', 'k.cu:153', (1, 2))
>>> parse("all fine") is None
True

So is an uncaught C++ exception's message (libstdc++'s terminate handler: ``terminate called after throwing an
instance of 'T'``, then ``what():  message``), the error the abort follows:

>>> f = parse("terminate called after throwing an instance of 'std::runtime_error'\\n  what():  bad handle\\nAborted")
>>> f.uncaught, f.lines
('bad handle', (2, 3))
"""

from __future__ import annotations

import dataclasses
import re
import signal as _signal

from diagnose.clip import clip
from diagnose.collectors.gate_words import gate
from diagnose.facts import ExitFacts

#: what bash (strsignal) prints for a signal, → signal name
_SHELL_WORDS = {
    "Segmentation fault": "SIGSEGV",
    "Aborted": "SIGABRT",
    "Killed": "SIGKILL",
    "Bus error": "SIGBUS",
    "Floating point exception": "SIGFPE",
    "Illegal instruction": "SIGILL",
    "Terminated": "SIGTERM",
    "Trace/breakpoint trap": "SIGTRAP",
    "Hangup": "SIGHUP",
    "Quit": "SIGQUIT",
}
#: the same words in the languages a shell's user may run it in: glibc's strsignal translations (libc.mo of glibc's
#: locales on this machine: zh_CN, zh_TW, de, fr, es, ru, ja, pt_BR, it, ko, pl, nl, sv, tr, uk, vi) for the signals
#: a crash raises; "Killed" and "Terminated" are left out (a job a user stopped, and common words)
_LOCALISED_WORDS = {
    "SIGSEGV": (
        "段错误",
        "程式記憶體區段錯誤",
        "Speicherzugriffsfehler",
        "Erreur de segmentation",
        "Violación de segmento",
        "Ошибка сегментирования",
        "Falha de segmentação",
        "Errore di segmentazione",
        "세그멘테이션 오류",
        "Naruszenie ochrony pamięci",
        "Segmentatiefout",
        "Segmenteringsfel",
        "Parçalama arızası",
        "Помилка адресування",
        "Lỗi phân đoạn",
    ),
    "SIGABRT": (
        "已放弃",
        "Abgebrochen",
        "Abandon",
        "Abortado",
        "Аварийный останов",
        "中止",
        "Annullato",
        "중지됨",
        "Przerwane",
        "Afgebroken",
        "Avbruten",
        "İptal edildi",
        "Перервано",
        "Bị hủy bỏ",
    ),
    "SIGBUS": (
        "总线错误",
        "匯流排錯誤",
        "Bus-Zugriffsfehler",
        "Erreur du bus",
        "Error del bus",
        "Ошибка шины",
        "バスエラー",
    ),
    "SIGILL": ("非法指令", "無效指令", "Ungültiger Maschinenbefehl", "Instruction non permise", "Instrucción ilegal"),
    "SIGFPE": ("浮点数例外", "浮點數例外", "Gleitkomma-Ausnahme", "Exception en point flottant", "浮動小数点例外"),
}
_SHELL_WORDS.update({w: sig for sig, words in _LOCALISED_WORDS.items() for w in words})
#: bash's "(core dumped)" after the word, and its translations (bash.mo of the same locales)
_CORE = (
    r"\((?:core dumped|core dumped \[obraz paměti uložen\]|Speicherabzug geschrieben|`core' generado"
    r"|образ памяти сброшен на диск|コアダンプ|imagem do núcleo gravada|core dump creato|코어 덤프됨|zrzut pamięci"
    r"|geheugendump gemaakt|minnesutskrift skapad|çekirdek döküldü|xuất ra core)\)|（核心已转储）|\(核心已傾印\)"
)
_WORDS = "|".join(re.escape(w) for w in _SHELL_WORDS)
# "bash: line 1:  8225 Segmentation fault      cmd", "/bin/bash: line 27: 318 Killed sh start.sh"
_JOB_REPORT = re.compile(
    r"(?:^|\s)(?:line \d+:\s+)?\d+\s+(?P<word>" + _WORDS + r")(?P<core>\s+(?:" + _CORE + r"))?(?:\s|$)"
)
# the word alone on its line: "Segmentation fault (core dumped)", "Killed"
_ALONE = re.compile(r"^\s*(?P<word>" + _WORDS + r")(?P<core>\s+(?:" + _CORE + r"))?\s*$")
_FATAL = re.compile(r"Fatal Python error: (?P<word>" + _WORDS + r")")
_CODE = re.compile(
    r"(?:exit(?:ed)?[ _-]?(?:code|status)|exitcode|returned non-zero exit status|exited with code|exit code)"
    r"\s*[:=]?\s*(?:with code\s*)?(?P<code>-?\d+)",
    re.IGNORECASE,
)
_SIGNAL_NAME = re.compile(
    r"(?:died with <Signals\.|Signal \d+ \(|interrupted by signal \d+: |\*\*\* |killed by signal:? ?)(?P<name>SIG[A-Z]+\d*)"
)
_OOM_KILL = re.compile(r"Out of memory: Kill(?:ed)? process \d+|\bKilled process \d+ \(|invoked oom-killer|oom-kill:")
_TIMEOUT = re.compile(r"\bTimeoutExpired\b|\btimed out after \d")
_HINTS = (
    *_SHELL_WORDS,
    "exit",
    "Exit",
    "EXIT",
    "Signal",
    "signal",
    "SIG",
    "oom-kill",
    "Killed process",
    "Out of memory: Kill",
    "TimeoutExpired",
    "timed out after",
    "core dumped",
    *(w for words in _LOCALISED_WORDS.values() for w in words),
)
#: a failed assertion (glibc's assert, assert/assert.c "%s%s%s:%u: %s%sAssertion `%s' failed."; a CUDA device
#: assert, "block: [0,0,0], thread: [0,0,0] Assertion `cond` failed."), and the "file:line:" it follows, on its
#: own line or on one of the two before it when the function's signature wrapped the message
_ASSERTION = re.compile(r"\bAssertion [`'](?P<cond>[^\n]{1,300}?)[`'] failed\b")
_ASSERTION_AT = re.compile(r"(?P<at>[\w.+/\\-]+\.(?:c|cc|cpp|cxx|cu|cuh|h|hpp|hxx|inl)):(?P<line>\d+):")
#: whether a line holds one of _HINTS (one search of their alternation: a line is short, and there are many)
_HINT_IN_LINE = re.compile("|".join(map(re.escape, _HINTS))).search


def signal_name(number: int) -> str | None:
    """``11`` → ``"SIGSEGV"`` (None for a number that is no signal here).

    >>> signal_name(6), signal_name(9), signal_name(0)
    ('SIGABRT', 'SIGKILL', None)
    """
    try:
        return _signal.Signals(number).name
    except ValueError:
        return None


def signal_of_code(code: int) -> str | None:
    """The signal an exit code stands for: ``-11`` (Python) or ``139`` (a shell's 128+11).

    >>> signal_of_code(-6), signal_of_code(137), signal_of_code(1)
    ('SIGABRT', 'SIGKILL', None)
    """
    if code < 0:
        return signal_name(-code)
    if 128 < code < 128 + 65:
        return signal_name(code - 128)
    return None


def normalise_signal(value: str | int | None) -> str | None:
    """``"SIGSEGV"``, ``"SEGV"``, ``"11"`` or ``11`` → ``"SIGSEGV"``; unknown names are kept upper-cased."""
    if value is None or value == "":
        return None
    if isinstance(value, int) or str(value).lstrip("-").isdigit():
        return signal_name(abs(int(value)))
    name = str(value).strip().upper()
    if not name.startswith("SIG"):
        name = "SIG" + name
    try:
        return _signal.Signals[name].name
    except KeyError:
        return name


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_hint = gate(_HINTS)


def parse(text: str) -> ExitFacts | None:
    """How the process(es) in ``text`` ended, or ``None`` when the log does not say."""
    if not _has_hint(text):
        return None
    code: int | None = None
    sig: str | None = None
    timed_out = oom_killed = core_dumped = False
    lines: list[int] = []
    assertion: tuple[str, str | None, tuple[int, ...]] | None = None
    uncaught: tuple[str, int] | None = None
    all_lines = text.splitlines()
    for ln, line in enumerate(all_lines, 1):
        if assertion is None and "Assertion " in line and len(line) <= 20000:
            assertion = _assertion(all_lines, ln)
        if uncaught is None and "terminate called after throwing" in line:
            uncaught = _uncaught(all_lines, ln)
        if len(line) > 20000 or not _HINT_IN_LINE(line):
            continue
        hit = False
        m = _ALONE.match(line) or _JOB_REPORT.search(line) or _FATAL.search(line)
        if m:
            sig = _SHELL_WORDS[m["word"]]
            core_dumped = core_dumped or bool(m.groupdict().get("core"))
            hit = True
        elif "core dumped" in line:
            core_dumped = hit = True
        m = _CODE.search(line)
        if m:
            code = int(m["code"])
            sig = signal_of_code(code) or (sig if code != 0 else None)
            hit = True
        m = _SIGNAL_NAME.search(line)
        if m:
            sig = normalise_signal(m["name"])
            hit = True
        if _OOM_KILL.search(line):
            oom_killed = hit = True
            sig = sig or "SIGKILL"
        if _TIMEOUT.search(line):
            timed_out = hit = True
        if hit:
            lines.append(ln)
    if not lines:
        return None
    if assertion is not None:
        lines = sorted({*lines, *assertion[2]})
    if uncaught is not None:
        lines = sorted({*lines, uncaught[1]})
    return ExitFacts(
        lines=tuple(lines),
        code=code,
        signal=sig,
        timed_out=timed_out,
        oom_killed=oom_killed,
        core_dumped=core_dumped,
        assertion=assertion[0] if assertion else None,
        assertion_at=assertion[1] if assertion else None,
        uncaught=uncaught[0] if uncaught else None,
    )


#: libstdc++'s terminate handler (libsupc++/vterminate.cc): "terminate called after throwing an instance of '%s'",
#: then "  what():  %s" when the exception derives from std::exception
MAX_UNCAUGHT = 300  # characters of an uncaught exception's message kept
_WHAT = re.compile(r"^\s*what\(\):\s+(?P<msg>\S[^\n]*)$")


def _uncaught(lines: list[str], ln: int) -> tuple[str, int] | None:
    """The message of the uncaught C++ exception whose terminate line is line ``ln`` (from 1), and its line: the
    ``what():`` line just after it, else None (an exception that is not a std::exception prints none)."""
    for k in range(ln, min(ln + 2, len(lines))):
        m = _WHAT.match(lines[k][:2000])
        if m:
            return clip(m["msg"].strip(), MAX_UNCAUGHT), k + 1
    return None


def _assertion(lines: list[str], ln: int) -> tuple[str, str | None, tuple[int, ...]] | None:
    """The failed assertion on line ``ln`` (from 1): its condition, the ``file:line`` it follows (on that line, or on
    one of the two before it that the message wrapped from: each of them ends in a colon) and the lines it spans."""
    m = _ASSERTION.search(lines[ln - 1])
    if m is None:
        return None
    spans = [ln]
    at = _ASSERTION_AT.search(lines[ln - 1], 0, m.start())
    i = ln - 1
    while at is None and i > 0 and ln - i <= 2 and lines[i - 1].rstrip().endswith(":"):
        spans.insert(0, i)
        at = _ASSERTION_AT.search(lines[i - 1])
        i -= 1
    if at is None:
        spans = [ln]
    where = f"{at['at']}:{at['line']}" if at else None
    return m["cond"], where, tuple(spans)


def merge(existing: ExitFacts | None, *, code: int | None, signal: str | None, timed_out: bool) -> ExitFacts:
    """Combine what the log said with a recorded exit status; the record wins for code and signal.

    >>> merge(parse("Killed"), code=137, signal=None, timed_out=False)
    ExitFacts(lines=(1,), code=137, signal='SIGKILL', timed_out=False, oom_killed=False, core_dumped=False, assertion=None, assertion_at=None, uncaught=None)
    >>> merge(None, code=None, signal="SEGV", timed_out=True).signal
    'SIGSEGV'
    """
    base = existing or ExitFacts()
    sig = normalise_signal(signal) or (signal_of_code(code) if code is not None else None)
    return dataclasses.replace(
        base,
        code=code if code is not None else base.code,
        signal=sig or base.signal,
        timed_out=timed_out or base.timed_out,
    )
