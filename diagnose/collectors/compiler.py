r"""nvcc, NVRTC, ptxas and host-compiler diagnostics.

A real sample (``tests/fixtures/compiler/ptxas-wgmma-sm80.log``: nvcc 13.0 on this machine,
``nvcc -c -arch=sm_80 wgmma.cu``)::

    ptxas /tmp/tmpxft_00001f58_00000000-6_wgmma.ptx, line 26; error   : Instruction 'wgmma.fence' not supported on .target 'sm_80'
    ptxas fatal   : Ptx assembly aborted due to errors

What is read:

- the EDG front end of nvcc and NVRTC: ``scale.cu(3): error: identifier "factor" is undefined``
  (also ``warning #177-D:``, ``note``, ``remark``, ``catastrophic error``) and the summary
  ``N errors detected in the compilation of "x.cu".`` (``error_count``).  ``tool`` is ``nvrtc``
  when the log names NVRTC (``__nv_nvrtc_builtin_header.h``, ``nvrtc``/``NVRTC``), else ``nvcc``;
- ``nvcc fatal   : Unsupported gpu architecture 'sm_1000'`` (``unknown_arch``);
- ptxas (also Triton's ``ptxas-blackwell``): errors with their PTX file and line, ``fatal``
  (``ptxas_fatal``; ``Value 'sm_89' is not defined for option 'gpu-name'`` → ``unknown_arch``),
  ``uses too much shared data (0x10004 bytes, 0xc000 max)`` (``smem_bytes``, ``smem_limit_bytes``),
  ``uses too much parameter space (0x9c48 bytes, 0x7ffc max)`` (``param_bytes``, ``param_limit_bytes``, and
  ``param_limit_raised`` when the limit is already the 32,764 bytes of PTX ISA 8.1 / CUDA 12.1 on Volta and newer;
  read anywhere in the log, since a JIT's wrapper may print the message without ptxas's prefix),
  ``Instruction 'wgmma.fence' not supported on .target 'sm_80'`` (``unsupported_feature``,
  ``target_arch``), and the ``-v`` figures: ``Used N registers`` (max over functions) and
  ``N bytes stack frame, N bytes spill stores, N bytes spill loads`` (spills summed, stack max);
- gcc/clang/MSVC (``host-compiler``): ``file.h:137:2: error: ...``; the toolkit's
  ``#error -- unsupported GNU version!`` (any ``unsupported ... version``) sets ``host_compiler_unsupported``.

``errors_in_toolkit_headers`` is True only when every error that names a file names a CUDA toolkit,
NVRTC builtin or system header.

>>> f = parse('scale.cu(3): error: identifier "factor" is undefined\n'
...           '1 error detected in the compilation of "scale.cu".')
>>> f.tool, f.error_count, f.first_error, f.first_error_file, f.lines
('nvcc', 1, 'identifier "factor" is undefined', 'scale.cu', (1, 2))
>>> f = parse("ptxas error   : Entry function '_Z5stagePKfPf' uses too much shared data (0x10004 bytes, 0xc000 max)")
>>> f.tool, f.smem_bytes, f.smem_limit_bytes
('ptxas', 65540.0, 49152.0)
>>> parse("ptxas fatal   : Value 'sm_89' is not defined for option 'gpu-name'").unknown_arch
'sm_89'
>>> f = parse("ptxas info    : Used 24 registers, used 0 barriers, 456 bytes cumulative stack size\n"
...           "    456 bytes stack frame, 932 bytes spill stores, 968 bytes spill loads")
>>> f.registers, f.spill_stores, f.spill_loads, f.stack_bytes, f.error_count
(24, 932, 968, 456, 0)
>>> parse('__nv_nvrtc_builtin_header.h(49099): error: expected a ";"').errors_in_toolkit_headers
True
>>> parse("nothing to see") is None
True
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from diagnose.collectors import compile_api, compile_cause, toolkit_release
from diagnose.collectors.compile_cause import in_toolkit_header
from diagnose.collectors.gate_words import gate
from diagnose.facts import CompilerFacts, Diagnostic

# at least one must occur before any regex runs
_MARKERS = (
    "ptxas",
    "nvcc",
    "): error",
    "): warning",
    "): catastrophic",
    "):\nerror",  # an EDG line wrapped after its location (see _EDG)
    "): \nerror",
    "detected in the compilation",
    ": error",
    ":\nerror",  # a gcc line wrapped after its location (see _GCC)
    ": \nerror",
    ": fatal error",
    "fatal error: ",
    "nvrtc",
    "NVRTC",
    "/c++/",  # a note in the C++ standard library's headers (see _stdlib_pack)
    "' died ",  # a toolchain process that crashed, on a line of its own (see _CRASHED_LINE)
    "[-Wunused-value]",  # gcc's and clang's warnings about a discarded value (see discarded_value)
    "[-Wunused-comparison]",
)

# EDG (nvcc's cudafe++ and NVRTC) and MSVC: "file(12): error: msg", "file(12): warning #177-D: msg",
# "file(12): error C2065: msg", "file(135): fatal error C1189: #error: msg"; a long path can push the severity onto
# the next line when a terminal or a log viewer wraps it ("very/long/path/file.cu(159): " then "error: msg"). A GLSL
# compiler's location is no file: Mesa's "0:3(1): error: msg" (source string 0, line 3, column 1) is an OpenGL shader's
_EDG = re.compile(
    r"^(?![ \t]*\d+:\d+\(\d+\):)(?P<file>[^\n]*?)\((?P<line>\d+)\):(?: |[ \t]*\n[ \t]*)(?P<sev>error|warning|catastrophic error|fatal error|note|remark)"
    r"(?: #\d+(?:-[A-Z])?| (?P<msvc>[A-Z]+\d{4}))?: (?P<msg>[^\n]*)$",
    re.M,
)
_SUMMARY = re.compile(r"^[ \t]*(\d+) (?:catastrophic )?errors? detected in the compilation of \"([^\"\n]*)\"", re.M)
_NVCC_FATAL = re.compile(r"^[ \t]*nvcc (fatal|error|warning)\s*: ([^\n]*)$", re.M)
_NVRTC_LINE = re.compile(r"^[ \t]*nvrtc: (error|warning)\s*: ([^\n]*)$", re.M)
_PTXAS = re.compile(
    r"^[ \t]*(?P<tool>ptxas[\w-]*)(?: (?P<file>[^\n,]+), line (?P<line>\d+);)? (?P<sev>error|warning|fatal|info)"
    r"\s*: (?P<msg>[^\n]*)$",
    re.M,
)
_SPILLS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"uses too much shared data \((0x[0-9a-fA-F]+|\d+) bytes, (0x[0-9a-fA-F]+|\d+) max\)")
_PARAM = re.compile(r"uses too much parameter space \((0x[0-9a-fA-F]+|\d+) bytes, (0x[0-9a-fA-F]+|\d+) max\)")
#: the kernel-parameter limit of PTX ISA 8.1 (CUDA 12.1) on Volta and newer, the largest any toolkit has
_PARAM_LIMIT_RAISED = 0x7FFC
_NOT_ON_TARGET = re.compile(r"'([^']+)' not supported on \.target '?(\w+)'?")
_REQUIRES_TARGET = re.compile(r"(?:Feature|Instruction|Modifier) '([^']+)' requires \.target")
# nvcc's front end on a source feature the arch being compiled for lacks:
# "__cluster_dims__ is not supported for this GPU architecture",
# "__grid_constant__ annotation is only allowed on architecture compute_70 or above"
_EDG_ARCH = re.compile(
    r"^(?P<feat>.+?)(?: annotation)? (?:is|are) (?:not supported for this GPU architecture"
    r"|only (?:supported|allowed) (?:on|for) (?:architecture )?(?:compute|sm)_\d+)"
)
_GPU_NAME = re.compile(r"Value '([^']+)' is not defined for option 'gpu-name'")
# the closing quote is optional: a log pasted into a report can lose it (`'compute_61` at the end of the line)
_UNSUPPORTED_ARCH = re.compile(r"Unsupported gpu architecture '([^'\s]+)'?")
# gcc/clang: "path/file.h:137:2: error: msg"; only C/C++/CUDA sources (and the C++ standard library's headers, which
# have no extension: "/usr/include/c++/6/tuple"), so Python or MLIR locations never count; a build tool may indent
# the line (a CI log's step, cargo's build-script output); a copy wrapped at the width of a page or terminal can put
# the severity on the line after the location ("src/corr_cuda.c:23:27: " then "error: dereferencing ...")
_GCC = re.compile(
    r"^[ \t]*(?P<file>[^\s:][^:\n]*?\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|cu|cuh|inl|ii|i|tcc)|<command-line>"
    r"|[^\s:][^:\n]*?/c\+\+/(?:\d+(?:\.\d+)*|v1)/[\w/+-]+)"
    r":(?P<line>\d+):(?:\d+:)?(?: |[ \t]*\n[ \t]*)(?P<sev>fatal error|error|warning|note): (?P<msg>[^\n]*)$",
    re.M,
)
# the preprocessor's include not found with its location cut off (an issue title, a quoted line): "fatal error:
# cub/cub.cuh: No such file or directory"; a program name may lead it ("cc1plus: fatal error: ...", gcc's
# "<command-line>: fatal error: ..." for a header that -include names)
_GCC_NO_FILE = re.compile(
    r"^[ \t]*(?:[\w.+<>-]+: )?fatal error: (?P<msg>[\w./+-]+: [Nn]o such file or directory)[ \t]*$", re.M
)
# a toolchain process that crashed, as nvcc names it ("'%s' died due to signal %d %s", "'%s' core dumped": the
# nvcc binary's own strings; nvcc for Windows: "'cudafe++' died with status 0xC0000005 (ACCESS_VIOLATION)", the
# process's NTSTATUS) or Triton does ("`ptxas` raised SIGSEGV")
_CRASHED = re.compile(
    r"['`](?P<tool>[\w.+-]+)['`] (?:died due to signal (?P<sig>\d+)|died with status (?P<status>0x[0-9A-Fa-f]+)"
    r"|core dumped|raised (?P<name>SIG\w+))"
)
# the same crash on a line of its own, without nvcc's "nvcc error :" (a build tool's or a user's copy of it)
_CRASHED_LINE = re.compile(
    r"^[^\n]*?(?P<msg>'(?:cudafe\+\+|cicc|ptxas|nvlink|fatbinary|nvcc)' died "
    r"(?:due to signal \d+(?: \([\w ]+\))?|with status 0x[0-9A-Fa-f]+(?: \(\w+\))?))",
    re.M,
)
_CRASH_WORDS = re.compile(
    r"[Mm]emory allocation (?:failure|error)|[Ii]nternal (?:compiler )?error|Unexpected exception"
)
_HOST_UNSUPPORTED = re.compile(
    r"unsupported (?:GNU|clang|Microsoft Visual Studio|[\w ]+?) version|UNSUPPORTED COMPILER"
)
# the start of another diagnostic line, where a wrapped message stops
_DIAG_START = re.compile(r"\b(?:fatal )?(?:error|warning)(?: [A-Z]+\d+)?:|^\S+\(\d+\)|^\S+:\d+\b")
# the range host_config.h states (crt/host_config.h of CUDA 8 to 13): "gcc versions later than 7 are not
# supported", "gcc 4.9 and up are not supported", "clang version must be less than 21 and greater than 3.2",
# "Only the versions between 2019 and 2022 (inclusive) are supported"
_HOST_GCC_MAX = re.compile(r"\bgcc versions? later than (\d+(?:\.\d+)?) (?:is|are) not supported")
_HOST_GCC_UP = re.compile(r"\bgcc (\d+(?:\.\d+)?) and up (?:is|are) not supported")
_HOST_CLANG_MAX = re.compile(r"\bclang version must be less than (\d+)\b")
_HOST_MSVC_RANGE = re.compile(r"\bOnly the versions between (\d{4}) and (\d{4}) \(inclusive\) are supported")

# a C++ standard library's own header (libstdc++ "/usr/include/c++/11/bits/std_function.h", libc++ "include/c++/v1/")
_STDLIB_HEADER = re.compile(r"/c\+\+/(?:\d+(?:\.\d+)*|v1)/(?P<name>[\w/.+-]+)$")
# gcc's error for a pack used without "..." (cp/pt.cc, check_for_bare_parameter_packs) and the note it lists each
# unexpanded pack in, the pack's name alone in quotes: "note:         ‘_ArgTypes’"
_PACKS_NOT_EXPANDED = "parameter packs not expanded"
_PACK_NOTE = re.compile(r"^[‘'`]\w+[’']$")

_ERRORISH = ("error", "fatal")
_BUILDKIT = re.compile(r"^#\d+ \d+(?:\.\d+)? +")
_MAX_CAUSE = 20  # errors read for their cause (the first ones; later ones are mostly cascades)
_MAX_CITED = 100  # a log of 10,000 errors cites its first hundred lines


def _num(s: str) -> float:
    return float(int(s, 16) if s.lower().startswith("0x") else int(s))


@dataclass
class _Scan:
    """One pass over a log: the diagnostics found (with their offsets) and the line index."""

    text: str
    nvrtc: bool
    found: list[tuple[int, Diagnostic]] = field(default_factory=list)
    _starts: list[int] = field(default_factory=list)

    def line_of(self, pos: int) -> int:
        if not self._starts:
            self._starts.extend([0, *(m.end() for m in re.finditer("\n", self.text))])
        return bisect.bisect_right(self._starts, pos)

    def add(self, pos: int, tool: str, sev: str, msg: str, file: str | None = None, line: str | None = None) -> None:
        if "#error" in msg and not _HOST_UNSUPPORTED.search(msg):
            msg = self._wrapped(pos, msg)
        if tool != "host-compiler" and "#error" in msg and _HOST_UNSUPPORTED.search(msg):
            tool = "host-compiler"  # the toolkit's host_config.h refusing the host compiler
        self.found.append(
            (pos, Diagnostic(tool, sev, msg.strip(), file, int(line) if line else None, log_line=self.line_of(pos)))
        )

    def _wrapped(self, pos: int, msg: str) -> str:
        """An ``#error`` message a console or a log viewer wrapped over the next lines (MSBuild's output at 80
        columns: "#error:  -" then "- unsupported Microsoft Visual Studio version! ..."), joined back when the joined
        text is host_config.h's refusal of the host compiler; else the message as it was."""
        end = self.text.find("\n", pos)
        if end < 0:
            return msg
        more: list[str] = []
        for nxt in self.text[end + 1 : end + 1 + 1_000].splitlines()[:3]:
            if not nxt.strip() or _DIAG_START.search(nxt):
                break
            more.append(nxt.strip())
        joined = " ".join([msg.rstrip(), *more])
        return joined if more and _HOST_UNSUPPORTED.search(joined) else msg


@dataclass
class _Resources:
    registers: int | None = None
    spill_stores: int = 0
    spill_loads: int = 0
    stack: int = 0
    lines: list[int] = field(default_factory=list)


def _scan_edg(sc: _Scan) -> None:
    """EDG front-end diagnostics (nvcc, NVRTC, MSVC): ``file(line): error: message``."""
    for m in _EDG.finditer(sc.text):
        file = m.group("file").strip()
        # a stray token before the path ("4194304 __nv_nvrtc_builtin_header.h(49099)") is not the path
        head, _, rest = file.partition(" ")
        if rest and head.isdigit():
            file = rest.strip()
        file = _BUILDKIT.sub("", file)  # docker build's step prefix: "#7 392.3 kernels.cu"
        file = file.rpartition(": ")[2]  # a caller's label before the program log: "Program compile log: k.cu"
        sev = "fatal" if m.group("sev") in ("catastrophic error", "fatal error") else m.group("sev")
        tool = "host-compiler" if m.group("msvc") else ("nvrtc" if sc.nvrtc else "nvcc")
        sc.add(m.start(), tool, sev, m.group("msg") + _edg_wrapped_name(sc.text, m.end()), file, m.group("line"))


#: a line that holds only a quoted name: EDG wraps a long message before its last quoted name ('namespace "thrust"
#: has no member' then, indented or not once pasted, '"stable_sort_by_key"')
_EDG_NAME_LINE = re.compile(r'[ \t]*("[^"\n]{1,200}")[ \t]*(?:\n|$)')


def _edg_wrapped_name(text: str, end: int) -> str:
    """The quoted name an EDG message wrapped onto the next line, with its space; "" when the next line is not one."""
    m = _EDG_NAME_LINE.match(text, end + 1) if text.startswith("\n", end) else None
    return f" {m.group(1)}" if m else ""


def _scan_ptxas(sc: _Scan, res: _Resources) -> None:
    """ptxas diagnostics, and its -v resource report (registers, spills, stack)."""
    text = sc.text
    if "ptxas" in text:
        for m in _PTXAS.finditer(text):
            sev, msg = m.group("sev"), m.group("msg")
            if sev == "info":
                r = _REGS.search(msg) if "registers" in msg else None
                if r:
                    n = int(r.group(1))
                    if res.registers is None or n > res.registers:
                        res.registers = n
                        res.lines.append(sc.line_of(m.start()))
                continue
            sc.add(m.start(), "ptxas", sev, msg, m.group("file"), m.group("line"))
    if "spill stores" in text:
        for m in _SPILLS.finditer(text):
            res.stack = max(res.stack, int(m.group(1)))
            res.spill_stores += int(m.group(2))
            res.spill_loads += int(m.group(3))
            if int(m.group(2)) or int(m.group(3)):
                res.lines.append(sc.line_of(m.start()))


#: OpenCV's cv::Exception spells its source position as a compiler does, then its error code and name in
#: parentheses (modules/core/src/system.cpp, Exception::formatMessage: "OpenCV(%s) %s:%d: error: (%d:%s) %s in function
#: '%s'"): "OpenCV(4.1.1) .../memory.hpp:263: error: (-217:Gpu API call) operation not supported in function 'f'"
_OPENCV_EXCEPTION = re.compile(r"\(-?\d+:[A-Za-z][^)\n]*\)\s")


def _scan_gcc(sc: _Scan) -> None:
    """Host compiler (gcc/clang) diagnostics: ``file:line:col: error: message``."""
    for m in _GCC.finditer(sc.text):
        if _OPENCV_EXCEPTION.match(m.group("msg")):
            continue  # OpenCV's run-time exception, not a compiler's diagnostic
        sev = "fatal" if m.group("sev") == "fatal error" else m.group("sev")
        file = _BUILDKIT.sub("", m.group("file"))  # docker build's step prefix, as for EDG's
        sc.add(m.start(), "host-compiler", sev, m.group("msg"), file, m.group("line"))
    if "No such file" in sc.text or "no such file" in sc.text:
        for m in _GCC_NO_FILE.finditer(sc.text):
            sc.add(m.start(), "host-compiler", "fatal", m.group("msg"))


def _unique(found: list[tuple[int, Diagnostic]]) -> tuple[Diagnostic, ...]:
    """In log order; the same diagnostic printed twice is one (Triton prints ptxas's log, then raises it)."""
    found.sort(key=lambda pd: pd[0])
    seen: set[tuple[str, str, str, str | None, int | None]] = set()
    unique = []
    for _, d in found:
        key = (d.tool, d.severity, d.message, d.file, d.line)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return tuple(unique)


def _crashed_tool(text: str, errors: list[Diagnostic]) -> str | None:
    """The toolchain process that crashed or failed internally, as the log names it (``cudafe++``, ``cicc``,
    ``ptxas``, ``nvlink``)."""
    if "died due to signal" in text or "died with status" in text or "core dumped" in text or "raised SIG" in text:
        hit = _CRASHED.search(text)
        if hit:
            return hit.group("tool")
    for d in errors:
        if d.tool in ("ptxas", "nvlink", "fatbinary") and _CRASH_WORDS.search(d.message):
            return d.tool
    return None


def _host_range(errors: list[Diagnostic]) -> tuple[str | None, str | None]:
    """The host compilers host_config.h accepts, as it states them ("gcc 7 or older"), and a ``-ccbin``
    value for the newest of them where the compiler's packages are named by version (``g++-7``)."""
    for d in errors:
        msg = d.message
        if hit := _HOST_GCC_MAX.search(msg):
            v = hit.group(1)
            return f"gcc {v} or older", f"g++-{v}" if "." not in v else None
        if hit := _HOST_GCC_UP.search(msg):
            return f"gcc older than {hit.group(1)}", None
        if hit := _HOST_CLANG_MAX.search(msg):
            v = int(hit.group(1)) - 1
            return f"clang {v} or older", f"clang++-{v}"
        if hit := _HOST_MSVC_RANGE.search(msg):
            return f"Visual Studio {hit.group(1)} to {hit.group(2)}", None
    return None, None


def _error_details(errors: list[Diagnostic]) -> dict[str, Any]:
    """What the error messages name: an unknown arch, a feature the target lacks, shared memory over the limit."""
    out: dict[str, Any] = dict.fromkeys(
        ("unknown_arch", "unsupported_feature", "target_arch", "ptxas_fatal", "smem_bytes", "smem_limit_bytes")
    )
    hit: re.Match[str] | None
    for d in errors:
        msg = d.message
        if d.tool == "ptxas" and d.severity == "fatal" and out["ptxas_fatal"] is None:
            out["ptxas_fatal"] = msg
        if out["unknown_arch"] is None and ("gpu-name" in msg or "Unsupported gpu" in msg):
            hit = _GPU_NAME.search(msg) or _UNSUPPORTED_ARCH.search(msg)
            if hit:
                out["unknown_arch"] = hit.group(1)
        if out["unsupported_feature"] is None and ".target" in msg:
            hit = _NOT_ON_TARGET.search(msg)
            if hit:
                out["unsupported_feature"], out["target_arch"] = hit.group(1), hit.group(2)
            else:
                hit = _REQUIRES_TARGET.search(msg)
                if hit:
                    out["unsupported_feature"] = hit.group(1)
        arch_words = "this GPU architecture" in msg or " only " in msg
        if out["unsupported_feature"] is None and d.tool in ("nvcc", "nvrtc") and arch_words:
            hit = _EDG_ARCH.search(msg)
            if hit:
                out["unsupported_feature"] = hit.group("feat").strip()
        if out["smem_bytes"] is None and "too much shared data" in msg:
            hit = _SMEM.search(msg)
            if hit:
                out["smem_bytes"], out["smem_limit_bytes"] = _num(hit.group(1)), _num(hit.group(2))
    return out


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_marker = gate(_MARKERS)


def _stdlib_pack(diags: tuple[Diagnostic, ...]) -> tuple[str | None, list[int]]:
    """The C++ standard library header in which gcc found parameter packs not expanded (the error, or the note
    that lists the packs), and the lines that say so.  A header of the host's own standard library compiles with
    that compiler; gcc finds bare packs in it only in the translation unit nvcc's front end (cudafe++) rewrote
    for it, from a toolkit older than the host's libstdc++ (CUDA 8 with gcc 6's <tuple>, CUDA 11.5 with gcc 11's
    std_function.h).  A pack a user's own template leaves bare is reported in the user's file."""
    header, lines = None, []
    for d in diags:
        hit = _STDLIB_HEADER.search(d.file or "") if d.tool == "host-compiler" else None
        if hit is None:
            continue
        error = d.severity in _ERRORISH and _PACKS_NOT_EXPANDED in d.message
        if error or (d.severity == "note" and _PACK_NOTE.match(d.message)):
            header = header or hit.group("name")
            if d.log_line is not None:
                lines.append(d.log_line)
    return header, lines


#: the compilers' warnings that a statement computes a value and throws it away, from each one's message catalogue:
#: EDG (nvcc's front end, NVRTC) #174-D "expression has no effect"; gcc's -Wunused-value ("statement has no effect",
#: "value computed is not used", "left/right operand of comma operator has no effect"); clang's -Wunused-value and
#: -Wunused-comparison ("expression result unused", "equality comparison result unused"); MSVC's C4552 and C4553
#: ("'==': operator has no effect; did you intend '='?")
_DISCARDED = re.compile(
    r"^(?:expression has no effect|statement has no effect|value computed is not used"
    r"|(?:left|right) operand of comma operator has no effect|expression result unused"
    r"|(?:equality|inequality|relational|three-way) comparison result unused"
    r"|'[^'\n]{1,3}': operator has no effect)"
)


def discarded_value(diags: tuple[Diagnostic, ...]) -> tuple[str | None, str | None]:
    """The first warning that a statement's value is discarded, and where (``file:line``).

    >>> d = Diagnostic("host-compiler", "warning", "statement has no effect [-Wunused-value]", "add.cu", 12)
    >>> discarded_value((d,))
    ('statement has no effect [-Wunused-value]', 'add.cu:12')
    >>> discarded_value((Diagnostic("nvcc", "warning", 'variable "x" was declared but never referenced'),))
    (None, None)
    """
    for d in diags:
        if d.severity == "warning" and _DISCARDED.match(d.message):
            where = f"{d.file}:{d.line}" if d.file and d.line is not None else d.file
            return d.message, where
    return None, None


def parse(text: str) -> CompilerFacts | None:
    if not _has_marker(text):
        return None
    sc = _Scan(text, nvrtc="nvrtc" in text or "NVRTC" in text)
    if "): " in text:
        _scan_edg(sc)
    summary_count = 0
    summary_lines: list[int] = []
    if "detected in the compilation" in text:
        for m in _SUMMARY.finditer(text):
            summary_count += int(m.group(1))
            summary_lines.append(sc.line_of(m.start()))
    if "nvcc" in text:
        for m in _NVCC_FATAL.finditer(text):
            sc.add(m.start(), "nvcc", m.group(1), m.group(2))
    if "nvrtc: " in text:
        for m in _NVRTC_LINE.finditer(text):
            sc.add(m.start(), "nvrtc", m.group(1), m.group(2))
    if "died with status" in text or "died due to signal" in text:
        taken = {d.log_line for _, d in sc.found}
        for m in _CRASHED_LINE.finditer(text):
            if sc.line_of(m.start()) not in taken:  # nvcc's own "nvcc error : ..." line was read above
                sc.add(m.start(), "nvcc", "error", m.group("msg"))
    res = _Resources()
    _scan_ptxas(sc, res)
    if ": error" in text or "fatal error: " in text or ": warning" in text or ":\nerror" in text or ": \nerror" in text:
        _scan_gcc(sc)
    elif ": note:" in text and not sc.found:
        _scan_gcc(sc)  # notes alone say nothing failed, unless they list the packs gcc found bare
        if _stdlib_pack(tuple(d for _, d in sc.found))[0] is None:
            sc.found.clear()
    if not sc.found and not summary_count and res.registers is None and not res.lines:
        return None

    diags = _unique(sc.found)
    errors = [d for d in diags if d.severity in _ERRORISH]
    counted = [d for d in errors if not (d.severity == "fatal" and "aborted due to errors" in d.message)]
    located = [d.file for d in errors if d.file]
    host_unsupported = any(
        _HOST_UNSUPPORTED.search(d.message)
        for d in errors
        if "unsupported" in d.message.lower() or "UNSUPPORTED" in d.message
    )
    # the errors when there are any (a deprecation warning before them proves nothing), else the warnings
    cited = [d.log_line for d in (errors or [d for d in diags if d.severity != "note"]) if d.log_line is not None]
    stdlib_pack_header, pack_lines = _stdlib_pack(diags)
    cited.extend(pack_lines)
    host_supported, host_ccbin = _host_range(errors) if host_unsupported else (None, None)
    crash_tool = _crashed_tool(text, errors)
    details = _error_details(errors)
    discarded, discarded_at = discarded_value(diags)
    return CompilerFacts(
        lines=tuple(sorted({*cited, *summary_lines, *res.lines}))[:_MAX_CITED],
        tool=errors[0].tool if errors else (diags[0].tool if diags else "ptxas"),
        error_count=summary_count or len(counted),
        errors=tuple(d.message for d in errors),
        first_error=errors[0].message if errors else None,
        first_error_file=errors[0].file if errors else None,
        errors_in_toolkit_headers=bool(located) and all(in_toolkit_header(f) for f in located),
        glibc_inline_memcpy=bool(errors) and glibc_inline_memcpy(errors[0].file, errors[0].message),
        registers=res.registers,
        spill_stores=res.spill_stores,
        spill_loads=res.spill_loads,
        stack_bytes=res.stack,
        host_compiler_unsupported=host_unsupported,
        host_compiler_supported=host_supported,
        host_compiler_ccbin=host_ccbin,
        crash_tool=crash_tool,
        crash_not_ptxas=crash_tool is not None and crash_tool != "ptxas",
        stdlib_pack_header=stdlib_pack_header,
        discarded_value=discarded,
        discarded_value_at=discarded_at,
        diagnostics=diags,
        **_arch_releases(text, details),
        **details,
        **_cause(text, errors),
        **_param_space(text),
    )


def _param_space(text: str) -> dict[str, Any]:
    """ptxas's kernel-parameter figures: the bytes a kernel's parameters need, the limit, and whether that limit is
    already the largest (so a newer toolkit cannot help).

    >>> _param_space("error   : Entry function '_Z1k3BigPf' uses too much parameter space (0x9c48 bytes, 0x7ffc max).")
    {'param_bytes': 40008.0, 'param_limit_bytes': 32764.0, 'param_limit_raised': True}
    >>> _param_space("uses too much parameter space (0x1f48 bytes, 0x1100 max).")["param_limit_raised"]
    False
    """
    hit = _PARAM.search(text) if "parameter space" in text else None
    if hit is None:
        return {}
    need, limit = _num(hit.group(1)), _num(hit.group(2))
    return {"param_bytes": need, "param_limit_bytes": limit, "param_limit_raised": limit >= _PARAM_LIMIT_RAISED}


#: glibc's own string.h inlines (``__mempcpy_inline``, glibc 2.23+) call memcpy, which the host pass of nvcc before
#: CUDA 8.0 does not see declared: "‘memcpy’ was not declared in this scope" at /usr/include/string.h (Ubuntu 16.04
#: with CUDA 7.5: NVlabs/xmp#4, fixed in CUDA 8.0; BVLC/caffe#4046, tensorflow/tensorflow#1346), worked around with
#: -D_FORCE_INLINES
_INLINE_MEMCPY = re.compile(r"\b(?:memcpy|mempcpy|memmove)\b.{0,4} was not declared")


def glibc_inline_memcpy(file: str | None, message: str) -> bool:
    """Whether an error is glibc's ``string.h`` calling memcpy that the compile cannot see declared.

    >>> glibc_inline_memcpy("/usr/include/string.h", "‘memcpy’ was not declared in this scope")
    True
    >>> glibc_inline_memcpy("kernel.cu", "‘memcpy’ was not declared in this scope")
    False
    """
    if not file or not re.search(r"(?:^|/)string\.h$", file.replace("\\", "/")):
        return False
    return _INLINE_MEMCPY.search(message) is not None


def _arch_releases(text: str, details: dict[str, Any]) -> dict[str, Any]:
    """Which toolkit releases accept the arch nvcc rejected, and where the log's own release stands."""
    arch = details["unknown_arch"]
    if arch is None:
        return {}
    first, removed = toolkit_release.arch_releases(arch)
    release = toolkit_release.toolkit_release(text)
    return {
        "toolkit_release": release,
        "arch_first_release": first,
        "arch_removed_in": removed,
        "arch_toolkit_side": toolkit_release.arch_side(arch, release),
        "arch_virtual": toolkit_release.virtual_arch(arch),
    }


def _cause(text: str, errors: list[Diagnostic]) -> dict[str, Any]:
    """What the front end's errors say about their cause (:mod:`diagnose.collectors.compile_cause`)."""
    out: dict[str, Any] = dict.fromkeys(
        (
            "library_header",
            "needs_arch",
            "gated_symbol",
            "removed_from_arch",
            "vendored_library",
            "toolkit_clash",
            "undefined_api",
            "api_owner",
            "api_removed_in",
            "error_directive_library",
            "macro_clash",
        )
    )
    if errors and (header := compile_cause.missing_header(errors[0].message)):
        out["missing_header"] = header
        out["missing_header_library"] = compile_cause.header_owner(errors[0].file)
        if removed := compile_api.removed_framework_header(header):
            out["missing_header_removed_in"], out["missing_header_removed_what"] = removed
        if shipped := compile_api.toolkit_header(header):
            added_in, out["missing_header_component"] = shipped
            release = toolkit_release.toolkit_release(text)
            out["missing_header_added_in"], out["missing_header_toolkit_release"] = added_in, release
            side = compile_api.release_side(added_in, release) if added_in else None
            out["missing_header_toolkit_too_old"] = side == "too-old"
    out["error_directive_library"] = compile_cause.error_directive_library(errors[0]) if errors else None
    out["macro_clash"] = compile_cause.macro_arity_clash(text) if errors else None
    edg = [d for d in errors[:_MAX_CAUSE] if d.tool in ("nvcc", "nvrtc")]
    if errors and errors[0].tool == "host-compiler" and (named := compile_api.undefined_api_host(errors[0].message)):
        # a host compiler's first error names an API a release removed or a library's name its headers lack (a .cpp
        # file calling the CUDA runtime or a GPU library)
        out["undefined_api"], out["api_owner"], out["api_removed_in"] = named
        out["api_replacement"] = compile_api.cccl_replacement(named[0])
    if not edg:
        return out
    lines = text.splitlines()
    out["library_header"] = compile_cause.library_of_header(edg[0].file)
    out["vendored_library"] = compile_cause.vendored_library(text, edg[0].file)
    api = compile_api.undefined_api(edg[0].message)  # the first error: later ones are often its cascade
    if api:
        out["undefined_api"], out["api_owner"], out["api_removed_in"] = api
        out["api_replacement"] = compile_api.cccl_replacement(api[0])
        declared_in = compile_api.library_header(api[0]) if api[2] is None else None
        if declared_in:
            out["api_header"], out["api_toolkit_declares"] = declared_in, True
        added = compile_api.added_type(api[0])
        if added:
            out["api_added_in"], out["api_header"], out["api_in_every_compile"] = added
            out["api_toolkit_side"] = compile_api.added_side(api[0], toolkit_release.toolkit_release(text))
    for d in edg:
        if d.file and in_toolkit_header(d.file):
            continue  # the toolkit's own lines: an error there is about what surrounds them
        after = lines[d.log_line : d.log_line + 6] if d.log_line else []
        build_arch = compile_cause.failing_pass_arch(text) or compile_cause.lowest_build_arch(text)
        gate = compile_cause.arch_gate(d.message, after, build_arch)
        if gate:
            if out["needs_arch"] is None:
                out["needs_arch"], out["gated_symbol"] = gate
                out["build_arch"] = build_arch
        elif out["removed_from_arch"] is None and (gone := compile_cause.removed_from_arch(d.message)):
            out["removed_from_arch"], out["build_arch"] = gone[0], out.get("build_arch") or build_arch
            out["gated_symbol"] = out["gated_symbol"] or gone[1]
        if out["toolkit_clash"] is None:
            out["toolkit_clash"] = compile_cause.clash(d.message, after)
            gated = compile_cause.redefined_gated_overload(d.message) if out["toolkit_clash"] else None
            if gated:
                out["toolkit_clash_from_arch"], out["toolkit_clash_in_every_toolkit"] = gated
    first_user = next((d for d in edg if not (d.file and in_toolkit_header(d.file))), None)
    dated = compile_api.intrinsic_release(first_user.message) if first_user is edg[0] else None
    if dated:
        release = toolkit_release.toolkit_release(text)
        out["intrinsic_added_in"], out["intrinsic_in_every_compile"] = dated[1], dated[2]
        out["intrinsic_toolkit_side"] = compile_api.release_side(dated[1], release)
        if out["needs_arch"]:
            out["needs_arch_unbuildable"] = not toolkit_release.arch_below_buildable(out["needs_arch"], dated[1])
    if out["needs_arch"] and out.get("build_arch"):
        need, built = compile_cause.arch_number(out["needs_arch"]), compile_cause.arch_number(out["build_arch"])
        out["build_arch_below_need"] = need is not None and built is not None and built < need
    if (
        first_user is not None
        and out["needs_arch"] is None
        and out["removed_from_arch"] is None
        and out["undefined_api"] is None  # a data type or a library's API: compile_api decides those
    ):
        # an intrinsic the toolkit's headers declare everywhere (no architecture guard): the toolkit's name
        intrinsic = compile_api.toolkit_intrinsic(first_user.message)
        if intrinsic and first_user is edg[0]:
            (
                out["toolkit_intrinsic"],
                out["toolkit_intrinsic_header"],
                out["toolkit_intrinsic_in_every_compile"],
            ) = intrinsic
            out["toolkit_intrinsic_side"] = compile_api.intrinsic_side(toolkit_release.toolkit_release(text))
        # a name of the CUDA runtime or driver API the toolkit's headers declare: the toolkit's name, not a typo
        api_name = compile_api.toolkit_api(first_user.message) if first_user is edg[0] and not intrinsic else None
        if api_name:
            out["toolkit_api"], out["toolkit_api_header"], out["toolkit_api_in_every_compile"] = api_name
            out["toolkit_api_side"] = compile_api.api_names_side(toolkit_release.toolkit_release(text))
    return out
