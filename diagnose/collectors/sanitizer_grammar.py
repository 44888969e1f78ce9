"""The line grammar of compute-sanitizer / cuda-memcheck reports: record headers and detail lines.

:mod:`diagnose.collectors.sanitizer` walks a log with these; each header line opens a :class:`Rec`,
each detail line (``at ...``, ``by thread ...``, ``Address ...``, ``Device Frame: ...``) fills it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagnose.collectors.signature import strip_return_type
from diagnose.facts import SanitizerRecord

# the report prefix: "========= " (indented when pasted inside a quote or a list)
PREFIX = re.compile(r"^\s*={5,} ?")
#: what a test runner or a log collector writes before a line of the tool's output: a bracketed tag
#: (``[pytest]``, ``[rank0]:``), a timestamp (``2024-05-01T10:00:00.123Z``, ``10:00:00``), a pytest node id
#: (``test_x.py::TestY::test_z``, which ``pytest -v`` prints before the test's output on the same line) or
#: unittest's verbose ``test_name (module.Class) ...``, a container's or a process's ``name |`` column; only where the report prefix follows it
RUNNER_PREFIX = re.compile(
    r"^\s*(?:(?:\[[^\]\n]{1,80}\]:?"
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\d\d:\d\d:\d\d(?:[.,]\d+)?"
    r"|[\w./-]+\.py::[\w\[\]./:,=-]+(?:\s+(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS))?"
    r"|\w+ \([\w.]+\)(?: \.\.\.)?"
    r"|[\w.-]+\s+\|)\s*)+(?=={5,})"
)

TOOL_FLAG = re.compile(r"--tool[= ]+(memcheck|racecheck|initcheck|synccheck)\b")

_INVALID = re.compile(
    r"^(Potential )?[Ii]nvalid (__global__|__shared__|__local__|__generic__|global|shared|local|generic) "
    r"(read|write|atomic|\?)(?: access)? of size (\d+)"
)
_UNINIT = re.compile(r"^Uninitialized (__global__|__shared__|__local__) memory read of size (\d+)")
_UNUSED = re.compile(
    r"^Unused (__global__|__shared__) memory in allocation(?: (0x[0-9a-fA-F]+))?(?: of size ([\d,]+) bytes?)?"
    r"(?: in block \(([\d, ]+)\))?"
)
_NOT_WRITTEN = re.compile(r"^Not written ([\d,]+) bytes?")
_HOST_API = re.compile(r"^Host API memory access error at host access to (0x[0-9a-fA-F]+) of size (\d+)")
_RACE_NEW = re.compile(
    r"^(Error|Warning|ERROR|WARNING|WARN|Info|INFO): Race reported between (Read|Write) access"
    r"(?: at (.*?))?(?: \[([\d,]+) hazards?\])?$"
)
_RACE_AND = re.compile(r"^and (Read|Write) access at (.*?)(?: \[([\d,]+) hazards?\])?$")
_RACE_OLD = re.compile(
    r"^(ERROR|WARNING|WARN|INFO|Error|Warning|Info) ?: ?(?:\(Warp Level Programming\) )?"
    r"Potential (RAW|WAR|WAW) hazard detected at (__shared__|__global__) (0x[0-9a-fA-F]+)"
    r"(?: in block \(([\d, ]+)\))?"
)
_RACE_THREAD = re.compile(r"^(Read|Write) Thread \(([\d, ]+)\) at (.*)$")
_BARRIER = re.compile(r"^Barrier error detected\. (Divergent thread\(s\) in (?:block|warp)|Invalid arguments)")
_DEADLOCK = re.compile(r"^Deadlock detected in (.*)")
# "... called by threads starting at (0,0,0) in block (0,0,0), (active mask: ...), barrier address: 0x0 at kernel+0x1190 in app.cu:98"
_DEADLOCK_WHERE = re.compile(
    r"starting at \(([\d, ]+)\) in block \(([\d, ]+)\).*?(?:barrier address: (0x[0-9a-fA-F]+))?(?: at (.+))?$"
)
_LEAK = re.compile(r"^Leaked (?:([\d,]+) bytes at (0x[0-9a-fA-F]+)|an? (\w+))")
_API = re.compile(r"^Program hit (.+?) \(error (\d+)\)(?: due to \"(.*?)\")? on CUDA API call to (\w+)")
_MALLOC = re.compile(r"^Malloc/Free error encountered")
_TMEM = re.compile(r"^Tensor Memory .* (?:is not allocated|guardrail)")
HW = re.compile(
    r"^(?:Warp |Lane |Device )?(?:Illegal [Ii]nstruction|Illegal Address|Misaligned Address|Out-of-range Address|"
    r"Out-of-range Shared or Local Address|Misaligned Shared or Local Address|Malformed [Ii]nstruction|Invalid PC|"
    r"Invalid Address Space|"
    r"(?:Hardware |User )?Stack Overflow|MMU Fault|Assert)\b",
    re.IGNORECASE,
)

_AT = re.compile(r"^at (.+)$")
_THREAD = re.compile(r"by thread \(([\d, ]+)\) in block \(([\d, ]+)\)")
_ADDRESS = re.compile(r"^(?:Address|Access at|Access to) (0x[0-9a-fA-F]+)(?: (is .*))?$")
_NEAREST = re.compile(
    r"^and is (?:([\d,]+) bytes (before|after)|(inside)) the nearest allocation at (0x[0-9a-fA-F]+) of size ([\d,]+)"
)
_DEVICE_FRAME = re.compile(r"^Device Frame: ?(.+)$")
# host backtraces: "Host Frame: run_out_of_bounds() [0xadb6] in memcheck_demo" (12.x+),
# "Host Frame:gkyl_advance in zero/array.cu:134 [0x5afe678]" with "in libgkylzero.so" on the next line (11.x),
# "Host Frame:/lib64/libcuda.so.1 (cuLaunchKernel + 0x34e) [0x2d725e]" (cuda-memcheck)
_HOST_FRAME = re.compile(r"^Host Frame: ?(.*)$")
_HOST_OLD = re.compile(r"^(\S+?\.(?:so|dll)[\w.]*) \((.+?)(?: \+ 0x[0-9a-fA-F]+)?\) \[0x[0-9a-fA-F]+\]$")
_HOST_NEW = re.compile(r"^(.*?)(?: in (\S+:\d+))? ?\[0x[0-9a-fA-F]+\](?: in (\S+))?$")
_HOST_MODULE = re.compile(r"^in (\S+)$")
# frames of the CUDA driver and runtime: where every launch goes through, not the application's code
_CUDA_HOST_NAME = re.compile(r"^(?:cu[A-Z]\w*|cuda[A-Z]\w*|__cuda\w*|__cudart\w*|cudart::|libcuda)")
_CUDA_HOST_MODULE = re.compile(r"(?:^|/)lib(?:cuda|cudart|nvidia-\w+)\.so|(?:^|[/\\])(?:nvcuda|cudart64_\w+)\.dll")
# NVIDIA's closed CUDA libraries (and NCCL), by their shared object on Linux or DLL on Windows (any path, any version
# suffix: libcusolver.so.10.0, libcublasLt.so.12, cudnn_ops_infer64_8.dll) or by their public entry points' names
# (cusolverDnZgesvd, cublasSgemm_v2, cudnnConvolutionForward, nppiResize_8u_C1R): a kernel such a frame launched is
# the library's own, whoever called the library
CLOSED_LIBRARIES = {
    "cusolver": "cuSOLVER",
    "cublasLt": "cuBLAS",
    "cublas": "cuBLAS",
    "cudnn": "cuDNN",
    "cufft": "cuFFT",
    "cusparse": "cuSPARSE",
    "curand": "cuRAND",
    "nccl": "NCCL",
    "nvjpeg": "nvJPEG",
    "npp": "NPP",
}
_CLOSED_LIB = "|".join(CLOSED_LIBRARIES)  # cublasLt before cublas
_CLOSED_LIB_MODULE = re.compile(
    rf"(?:^|[/\\])(?:lib)?(?P<lib>{_CLOSED_LIB})[A-Za-z_]*(?:64_\d+)?\.(?:so|dll)(?:\.[\d.]*\d)?$"
)
_CLOSED_LIB_NAME = re.compile(rf"^(?P<lib>{_CLOSED_LIB})[A-Z]\w*")
_SRC = re.compile(r"^(.*) in (\S+:\d+)$")
_OFFSET = re.compile(r"(?:\+|:)0x[0-9a-fA-F]+$")
_OLD_FUNC = re.compile(r"^(\S+\.\w+:\d+):(.+)$")  # "/path/file.cuh:272:Func<...>" (cuda-memcheck)

ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: ([\d,]+) errors?")
RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: ([\d,]+) hazards? displayed \(([\d,]+) errors?, ([\d,]+) warnings?\)")
LEAK_SUMMARY = re.compile(r"LEAK SUMMARY: ([\d,]+) bytes leaked in ([\d,]+) allocations?")

_SPACE = {"__global__": "global", "__shared__": "shared", "__local__": "local", "__generic__": "generic"}

#: the tool that produces each kind (api errors and the like come from whichever tool ran)
_KIND_TOOL = (
    ("race-", "racecheck"),
    ("barrier-deadlock", "racecheck"),
    ("uninitialized-", "initcheck"),
    ("unused-", "initcheck"),
    ("barrier-", "synccheck"),
)

MAX_LINES = 400  # cited lines kept; a report with 10,000 errors need not cite them all


def to_int(s: str | None) -> int | None:
    return int(s.replace(",", "")) if s else None


def _norm_tuple(s: str) -> str:
    return "(" + s.replace(" ", "") + ")"


def _split_location(loc: str) -> tuple[str | None, str | None]:
    """``kernel(args)+0x330 in file.cu:42`` → (``kernel(args)``, ``file.cu:42``); older forms too."""
    loc = loc.strip()
    source = None
    if loc.startswith("0x"):  # cuda-memcheck / early sanitizer: "0x3b0 in void kernel<...>(...)"
        _pc, _, rest = loc.partition(" in ")
        if not rest:
            return None, None
        old = _OLD_FUNC.match(rest)
        if old:
            return old.group(2).strip(), old.group(1)
        return _strip_void(rest), None
    m = _SRC.match(loc)
    if m:
        loc, source = m.group(1), m.group(2)
    return _strip_void(_OFFSET.sub("", loc)), source


def short_path(path: str) -> str:
    """A long path cut to its last components, so a cut text keeps the file and line."""
    if len(path) <= 60 or "/" not in path:
        return path
    return "/".join(path.rsplit("/", 2)[-2:])


def _strip_void(name: str) -> str:
    """The function's name without the return type printed before it (``void``, ``cuda::std::pair<...>``)."""
    return strip_return_type(name)


@dataclass
class Rec:
    tool: str | None
    kind: str
    line: int
    message: str
    access: str | None = None
    space: str | None = None
    size: int | None = None
    address: str | None = None
    function: str | None = None
    kernel: str | None = None
    thread: str | None = None
    block: str | None = None
    source: str | None = None
    allocation: str | None = None
    relation: str | None = None
    distance: int | None = None
    hazards: int = 0
    severity: str = "error"
    out_of_bounds: bool = False
    misaligned: bool = False
    api_error: str | None = None
    api_call: str | None = None  # the call that returned it: "cudaLaunchKernel"
    leak_bytes: int | None = None
    allocation_address: str | None = None
    allocation_size: int | None = None
    unwritten: int | None = None
    frames: list[str] = field(default_factory=list)
    frame_sources: list[str] = field(default_factory=list)  # file:line of device frames, innermost first
    host_frames: list[list[str | None]] = field(default_factory=list)  # [name, source, module]
    accesses: list[str] = field(default_factory=list)

    def locate(self, loc: str) -> None:
        func, src = _split_location(loc)
        if self.function is None and func:
            self.function = func
        if self.source is None and src:
            self.source = src

    def add_access(self, what: str, loc: str, thread: str | None = None) -> None:
        """A racecheck access: "write at raceWAW.cu:20" (the source when printed, else kernel+offset)."""
        _func, src = _split_location(loc)
        where = short_path(src) if src else loc.strip()
        by = f" by thread {thread}" if thread else ""
        text = f"{what.lower()}{by} at {where}"
        self.accesses.append(text if len(text) <= 100 else text[:97] + "...")

    def host(self, frame: str) -> None:
        m = _HOST_OLD.match(frame)
        if m:
            self.host_frames.append([m.group(2).strip(), None, m.group(1)])
            return
        m = _HOST_NEW.match(frame)
        if m:
            self.host_frames.append([_strip_void(m.group(1)) or None, m.group(2), m.group(3)])

    def first_host_frame(self) -> str | None:
        """The first host frame outside the CUDA driver and runtime: the application's (or a library's)
        call that launched the kernel, made the allocation or the API call."""
        for name, src, module in self.host_frames:
            if not name or _CUDA_HOST_NAME.match(name) or (module and _CUDA_HOST_MODULE.search(module)):
                continue
            if src:
                return f"{name} ({short_path(src)})"
            return f"{name} in {short_path(module)}" if module else name
        return None

    def launching_library(self) -> tuple[str, str] | None:
        """The closed NVIDIA library whose code made the call the first host frame outside the CUDA driver and
        runtime shows (the launch of the faulting kernel), as (library, its file or entry point), or None: that
        frame is the application's own (or no host frame was printed)."""
        for name, _src, module in self.host_frames:
            if (name and _CUDA_HOST_NAME.match(name)) or (module and _CUDA_HOST_MODULE.search(module)):
                continue
            if not name and not module:
                continue
            m = _CLOSED_LIB_MODULE.search(module or "")
            if m:
                return CLOSED_LIBRARIES[m.group("lib")], module.replace("\\", "/").rsplit("/", 1)[-1]  # type: ignore[union-attr]
            m = _CLOSED_LIB_NAME.match(name or "")
            if m:
                return CLOSED_LIBRARIES[m.group("lib")], m.group(0)
            return None
        return None

    def freeze(self, tool: str) -> SanitizerRecord:
        kind = self.kind
        if self.misaligned and kind.startswith("invalid-"):
            kind = "misaligned-" + kind[len("invalid-") :]
        rec_tool = self.tool or next((t for p, t in _KIND_TOOL if kind.startswith(p)), None) or tool
        # the kernel is the outermost device frame; the access happened in `function`
        kernel = self.frames[-1] if self.frames else self.function
        return SanitizerRecord(
            tool=rec_tool,
            kind=kind,
            access=self.access,
            space=self.space,
            size=self.size,
            address=self.address,
            kernel=kernel,
            function=self.function,
            thread=self.thread,
            block=self.block,
            source=self.source,
            allocation=self.allocation,
            log_line=self.line,
            message=self.message,
            severity=self.severity,
            hazards=self.hazards,
            allocation_address=self.allocation_address,
            allocation_size=self.allocation_size,
            host_frame=self.first_host_frame(),
            accesses=tuple(self.accesses),
        )


def _race_or_barrier(c: str, body: str, lineno: int) -> Rec | None:
    """racecheck and synccheck record headers."""
    if c in "EWIe":
        m = _RACE_NEW.match(body)
        if m:
            rec = Rec("racecheck", "race-shared", lineno, body, severity=_severity(m.group(1)))
            if m.group(3):
                rec.locate(m.group(3))
                rec.add_access(m.group(2), m.group(3))
            rec.hazards += to_int(m.group(4)) or 0
            return rec
        m = _RACE_OLD.match(body)
        if m:
            space = _SPACE[m.group(3)]
            rec = Rec(
                "racecheck",
                f"race-{space}",
                lineno,
                body,
                space=space,
                address=m.group(4),
                severity=_severity(m.group(1)),
                hazards=1,
            )
            if m.group(5):
                rec.block = _norm_tuple(m.group(5))
            return rec
    if c == "B":
        m = _BARRIER.match(body)
        if m:
            kind = "barrier-invalid-arguments" if m.group(1).startswith("Invalid") else "barrier-divergence"
            return Rec("synccheck", kind, lineno, body)
    if c == "D":
        m = _DEADLOCK.match(body)
        if m:
            rec = Rec("racecheck", "barrier-deadlock", lineno, body)
            w = _DEADLOCK_WHERE.search(m.group(1))
            if w:
                rec.thread, rec.block, rec.address = _norm_tuple(w.group(1)), _norm_tuple(w.group(2)), w.group(3)
                if w.group(4):
                    rec.locate(w.group(4))
            return rec
    return None


def header(body: str, lineno: int) -> Rec | None:
    """A line that opens a new record, or None."""
    c = body[:1]
    if c in "IP":
        m = _INVALID.match(body)
        if m:
            space = _SPACE.get(m.group(2), m.group(2))
            access = None if m.group(3) == "?" else m.group(3)
            kind = f"invalid-{space}-{access or 'access'}"
            # "Potential invalid __shared__ read" is racecheck's cluster entry/exit check
            tool = "racecheck" if m.group(1) else "memcheck"
            return Rec(tool, kind, lineno, body, access=access, space=space, size=to_int(m.group(4)))
        m = _API.match(body)
        if m:
            name = m.group(1)
            ident = name if re.fullmatch(r"(?:cuda|CUDA_ERROR_)\w+", name) else None
            kind = "device-assert" if ident in ("cudaErrorAssert", "CUDA_ERROR_ASSERT") else "api-error"
            return Rec(None, kind, lineno, body, api_error=ident, api_call=m.group(4))
    if c == "U":
        m = _UNINIT.match(body)
        if m:
            space = _SPACE[m.group(1)]
            return Rec(
                "initcheck",
                f"uninitialized-{space}-read",
                lineno,
                body,
                access="read",
                space=space,
                size=to_int(m.group(2)),
            )
        m = _UNUSED.match(body)
        if m:
            unused = Rec("initcheck", "unused-memory", lineno, body, space=_SPACE[m.group(1)], severity="warning")
            unused.allocation_address, unused.allocation_size = m.group(2), to_int(m.group(3))
            if m.group(4):
                unused.block = _norm_tuple(m.group(4))
            return unused
    if c in "EWIeBD":
        rec = _race_or_barrier(c, body, lineno)
        if rec is not None:
            return rec
    if c == "L":
        m = _LEAK.match(body)
        if m:
            return Rec(
                "memcheck",
                "leak",
                lineno,
                body,
                address=m.group(2),
                size=to_int(m.group(1)),
                leak_bytes=to_int(m.group(1)),
            )
    if c == "H":
        m = _HOST_API.match(body)
        if m:
            return Rec(
                "initcheck", "uninitialized-host-api-access", lineno, body, address=m.group(1), size=to_int(m.group(2))
            )
    if c == "M" and _MALLOC.match(body):
        return Rec("memcheck", "malloc-free-error", lineno, body)
    if c == "T" and _TMEM.match(body):
        return Rec("memcheck", "tensor-memory-guardrail", lineno, body)
    return None


def _severity(word: str) -> str:
    w = word.lower()
    return "error" if w.startswith("err") else "warning" if w.startswith("warn") else "info"


def detail(rec: Rec, body: str) -> bool:
    """Apply a detail line to the open record; True when the line said something."""
    c = body[:1]
    if c == "a":
        m = _NEAREST.match(body)
        if m:
            rec.allocation = body
            if m.group(3):
                rec.relation, rec.distance = "inside", 0
            else:
                rec.relation, rec.distance = m.group(2), to_int(m.group(1))
            rec.allocation_address, rec.allocation_size = m.group(4), to_int(m.group(5))
            return True
        m = _RACE_AND.match(body)
        if m:
            rec.hazards += to_int(m.group(3)) or 0
            rec.add_access(m.group(1), m.group(2))
            return True
        m = _AT.match(body)
        if m:
            rec.locate(m.group(1))
            return True
    elif c == "b":
        m = _THREAD.match(body)
        if m:
            rec.thread, rec.block = _norm_tuple(m.group(1)), _norm_tuple(m.group(2))
            return True
    elif c == "A":
        m = _ADDRESS.match(body)
        if m:
            rec.address = m.group(1)
            state = m.group(2) or ""
            if "out of bounds" in state:
                rec.out_of_bounds = True
            elif "misaligned" in state:
                rec.misaligned = True
            return True
    elif c == "D":
        m = _DEVICE_FRAME.match(body)
        if m:
            func, src = _split_location(m.group(1))
            if func and not func.startswith("NVIDIA Internal"):
                rec.frames.append(func.split(" (", 1)[0] if " : 0x" in func else func)
            if src:
                rec.frame_sources.append(src)
            return True
    elif c in "RW":
        m = _RACE_THREAD.match(body)
        if m:
            if rec.thread is None:
                rec.thread = _norm_tuple(m.group(2))
            rec.locate(m.group(3))
            rec.add_access(m.group(1), m.group(3), _norm_tuple(m.group(2)))
            return True
    elif c == "H":
        m = _HOST_FRAME.match(body)
        if m:
            rec.host(m.group(1).strip())
        return False  # a host frame is context, not a line that proves the error
    elif c == "i":
        m = _HOST_MODULE.match(body)
        if m and rec.host_frames and rec.host_frames[-1][2] is None:
            rec.host_frames[-1][2] = m.group(1)
        return False
    elif c == "N":
        m = _NOT_WRITTEN.match(body)
        if m:
            if rec.unwritten is None:
                rec.unwritten = to_int(m.group(1))
            return True
    return False
