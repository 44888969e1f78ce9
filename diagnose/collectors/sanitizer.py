"""compute-sanitizer (and legacy cuda-memcheck) reports → :class:`~diagnose.facts.SanitizerFacts`.

Reads the text reports of all four tools (memcheck with leak checking, racecheck,
initcheck, synccheck), with or without the ``=========`` prefix, whole or partly
pasted.  One :class:`~diagnose.facts.SanitizerRecord` per reported error, plus flat
summaries for rules.  A real sample (NVIDIA's Compute Sanitizer documentation,
13.5, "Example Use of Memcheck")::

    ========= COMPUTE-SANITIZER
    ========= Invalid __global__ write of size 4 bytes
    =========     at out_of_bounds_function()+0xb0 in memcheck_demo.cu:39
    =========     by thread (0,0,0) in block (0,0,0)
    =========     Address 0x87654320 is out of bounds
    =========     and is 137,179,965,340,896 bytes before the nearest allocation at 0x7cc43a800000 of size 1,024 bytes
    =========         Device Frame: out_of_bounds_kernel()+0x30 in memcheck_demo.cu:44
    ========= ERROR SUMMARY: 2 errors

Normalised kinds (``SanitizerRecord.kind``, ``sanitizer_kinds``, ``sanitizer_first_kind``)
— rule writers match on these:

memcheck
    ``invalid-<space>-<access>`` — space ``global`` | ``shared`` | ``local`` | ``generic``,
    access ``read`` | ``write`` | ``atomic`` (``Invalid __global__ read of size 4 bytes``);
    ``invalid-<space>-access`` when the access was printed as ``?``;
    ``invalid-global-access`` for a partial paste without its header line (only ``at … / by
    thread … / Address … is out of bounds``; the nearest-allocation sentence only exists for
    device allocations, so the space is global; read or write is unknown);
    ``misaligned-<space>-<access>`` when the address ``is misaligned``;
    ``hardware-exception`` (``Illegal instruction``, ``Warp Illegal Address``,
    ``Warp Misaligned Address``, ``Malformed instruction``, ``Invalid PC``, stack overflows, ...);
    ``malloc-free-error`` (device-heap ``Malloc/Free error encountered : Double free``);
    ``leak`` (``Leaked 1,024 bytes at 0x...``, ``Leaked an OptixProgramGroup ...``);
    ``tensor-memory-guardrail`` (tcgen05 Tensor Memory guardrails).
any tool
    ``api-error`` (``Program hit cudaErrorX (error N) due to "..." on CUDA API call to cudaY.``);
    ``device-assert`` when that error is ``cudaErrorAssert`` / ``CUDA_ERROR_ASSERT``.
racecheck
    ``race-shared`` | ``race-global`` (``Error: Race reported between Write access at ... and
    Read access at ... [N hazards]``, ``ERROR: Potential WAW hazard detected at __shared__ 0x0``;
    the new format names no space: racecheck checks shared memory, so it is ``race-shared``);
    ``barrier-deadlock`` (``Deadlock detected in Cuda::barrier wait``).
initcheck
    ``uninitialized-<space>-read`` (``Uninitialized __global__ memory read of size 4 bytes``);
    ``uninitialized-host-api-access`` (``Host API memory access error ... Uninitialized access``);
    ``unused-memory`` (``--track-unused-memory``: ``Unused __global__ memory in allocation``).
synccheck
    ``barrier-divergence`` (``Barrier error detected. Divergent thread(s) in block|warp``);
    ``barrier-invalid-arguments`` (``Barrier error detected. Invalid arguments``).

Racecheck's synchronization trace lines (``Barrier called by threads starting at ...``) are
information, not errors, and make no record.

>>> f = parse('''========= Invalid __global__ write of size 4 bytes
... =========     at unaligned_kernel():0x160 in memcheck_demo.cu:6
... =========     by thread (0,0,0) in block (0,0,0)
... =========     Address 0x7f6510c00001 is misaligned''')
>>> f.tool, f.first_kind, f.access, f.space, f.access_size, f.misaligned, f.kernel
('memcheck', 'misaligned-global-write', 'write', 'global', 4, True, 'unaligned_kernel()')
>>> f.records[0].source, f.records[0].thread, f.error_count
('memcheck_demo.cu:6', '(0,0,0)', 1)

A partial paste (real-dev.yaml gkeyll-reduction-oob-read, gkeyllorg/gkeyll#738):

>>> f = parse('''=========     at gkyl_array_integrate_op_none_1x_ser_p1+0x330
... =========     by thread (57,0,0) in block (0,0,0)
... =========     Address 0x7f7640a003a0 is out of bounds
... =========     and is 96 bytes before the nearest allocation at 0x7f7640a00400 of size 96 bytes''')
>>> f.tool, f.first_kind, f.out_of_bounds, f.allocation_relation, f.allocation_distance_bytes
('memcheck', 'invalid-global-access', True, 'before', 96)

>>> parse("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagnose.facts import SanitizerFacts, SanitizerRecord

# Literal needles: a log that contains none of them is not a sanitizer report.
_NEEDLES = (
    "=========",
    "COMPUTE-SANITIZER",
    "compute-sanitizer",
    "cuda-memcheck",
    "CUDA-MEMCHECK",
    "by thread (",
    "hazard",
    "Race reported",
    "Leaked ",
    "Barrier error",
    "Uninitialized __",
    "Invalid __",
    "is out of bounds",
    "nearest allocation",
    "on CUDA API call to",
)

# the report prefix: "========= " (indented when pasted inside a quote or a list)
_PREFIX = re.compile(r"^\s*={5,} ?")

_TOOL_FLAG = re.compile(r"--tool[= ]+(memcheck|racecheck|initcheck|synccheck)\b")

_INVALID = re.compile(
    r"^(Potential )?[Ii]nvalid (__global__|__shared__|__local__|__generic__|global|shared|local|generic) "
    r"(read|write|atomic|\?)(?: access)? of size (\d+)"
)
_UNINIT = re.compile(r"^Uninitialized (__global__|__shared__|__local__) memory read of size (\d+)")
_UNUSED = re.compile(r"^Unused (__global__|__shared__) memory in allocation")
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
_LEAK = re.compile(r"^Leaked (?:([\d,]+) bytes at (0x[0-9a-fA-F]+)|an? (\w+))")
_API = re.compile(r"^Program hit (.+?) \(error (\d+)\)(?: due to \"(.*?)\")? on CUDA API call to (\w+)")
_MALLOC = re.compile(r"^Malloc/Free error encountered")
_TMEM = re.compile(r"^Tensor Memory .* (?:is not allocated|guardrail)")
_HW = re.compile(
    r"^(?:Warp |Lane |Device )?(?:Illegal [Ii]nstruction|Illegal Address|Misaligned Address|Out-of-range Address|"
    r"Out-of-range Shared or Local Address|Malformed [Ii]nstruction|Invalid PC|Invalid Address Space|"
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
_SRC = re.compile(r"^(.*) in (\S+:\d+)$")
_OFFSET = re.compile(r"(?:\+|:)0x[0-9a-fA-F]+$")
_OLD_FUNC = re.compile(r"^(\S+\.\w+:\d+):(.+)$")  # "/path/file.cuh:272:Func<...>" (cuda-memcheck)

_ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: ([\d,]+) errors?")
_RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: ([\d,]+) hazards? displayed \(([\d,]+) errors?, ([\d,]+) warnings?\)")
_LEAK_SUMMARY = re.compile(r"LEAK SUMMARY: ([\d,]+) bytes leaked in ([\d,]+) allocations?")

_SPACE = {"__global__": "global", "__shared__": "shared", "__local__": "local", "__generic__": "generic"}

#: the tool that produces each kind (api errors and the like come from whichever tool ran)
_KIND_TOOL = (
    ("race-", "racecheck"),
    ("barrier-deadlock", "racecheck"),
    ("uninitialized-", "initcheck"),
    ("unused-", "initcheck"),
    ("barrier-", "synccheck"),
)

_MAX_LINES = 400  # cited lines kept; a report with 10,000 errors need not cite them all


def _int(s: str | None) -> int | None:
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


def _strip_void(name: str) -> str:
    name = name.strip()
    return name[5:] if name.startswith("void ") else name


@dataclass
class _Rec:
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
    leak_bytes: int | None = None
    frames: list[str] = field(default_factory=list)

    def locate(self, loc: str) -> None:
        func, src = _split_location(loc)
        if self.function is None and func:
            self.function = func
        if self.source is None and src:
            self.source = src

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
        )


def _header(body: str, lineno: int) -> _Rec | None:
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
            return _Rec(tool, kind, lineno, body, access=access, space=space, size=_int(m.group(4)))
        m = _API.match(body)
        if m:
            name = m.group(1)
            ident = name if re.fullmatch(r"(?:cuda|CUDA_ERROR_)\w+", name) else None
            kind = "device-assert" if ident in ("cudaErrorAssert", "CUDA_ERROR_ASSERT") else "api-error"
            return _Rec(None, kind, lineno, body, api_error=ident)
    if c == "U":
        m = _UNINIT.match(body)
        if m:
            space = _SPACE[m.group(1)]
            return _Rec(
                "initcheck",
                f"uninitialized-{space}-read",
                lineno,
                body,
                access="read",
                space=space,
                size=_int(m.group(2)),
            )
        m = _UNUSED.match(body)
        if m:
            return _Rec("initcheck", "unused-memory", lineno, body, space=_SPACE[m.group(1)], severity="warning")
    if c in "EWIe":
        m = _RACE_NEW.match(body)
        if m:
            rec = _Rec("racecheck", "race-shared", lineno, body, severity=_severity(m.group(1)))
            if m.group(3):
                rec.locate(m.group(3))
            rec.hazards += _int(m.group(4)) or 0
            return rec
        m = _RACE_OLD.match(body)
        if m:
            space = _SPACE[m.group(3)]
            rec = _Rec(
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
            return _Rec("synccheck", kind, lineno, body)
    if c == "D":
        m = _DEADLOCK.match(body)
        if m:
            return _Rec("racecheck", "barrier-deadlock", lineno, body)
    if c == "L":
        m = _LEAK.match(body)
        if m:
            return _Rec(
                "memcheck", "leak", lineno, body, address=m.group(2), size=_int(m.group(1)), leak_bytes=_int(m.group(1))
            )
    if c == "H":
        m = _HOST_API.match(body)
        if m:
            return _Rec(
                "initcheck", "uninitialized-host-api-access", lineno, body, address=m.group(1), size=_int(m.group(2))
            )
    if c == "M" and _MALLOC.match(body):
        return _Rec("memcheck", "malloc-free-error", lineno, body)
    if c == "T" and _TMEM.match(body):
        return _Rec("memcheck", "tensor-memory-guardrail", lineno, body)
    return None


def _severity(word: str) -> str:
    w = word.lower()
    return "error" if w.startswith("err") else "warning" if w.startswith("warn") else "info"


def _detail(rec: _Rec, body: str) -> bool:
    """Apply a detail line to the open record; True when the line said something."""
    c = body[:1]
    if c == "a":
        m = _NEAREST.match(body)
        if m:
            rec.allocation = body
            if m.group(3):
                rec.relation, rec.distance = "inside", 0
            else:
                rec.relation, rec.distance = m.group(2), _int(m.group(1))
            return True
        m = _RACE_AND.match(body)
        if m:
            rec.hazards += _int(m.group(3)) or 0
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
            func, _src = _split_location(m.group(1))
            if func and not func.startswith("NVIDIA Internal"):
                rec.frames.append(func.split(" (", 1)[0] if " : 0x" in func else func)
            return True
    elif c in "RW":
        m = _RACE_THREAD.match(body)
        if m:
            if rec.thread is None:
                rec.thread = _norm_tuple(m.group(2))
            rec.locate(m.group(3))
            return True
    return False


def parse(text: str) -> SanitizerFacts | None:
    if not any(n in text for n in _NEEDLES):
        return None
    tool_m = _TOOL_FLAG.search(text)
    banner = "COMPUTE-SANITIZER" in text or "CUDA-MEMCHECK" in text
    recs: list[_Rec] = []
    lines: list[int] = []
    cur: _Rec | None = None
    error_summary: int | None = None
    race_summary: tuple[int, int] | None = None
    leak_allocs = 0

    for lineno, raw in enumerate(text.splitlines(), 1):
        m = _PREFIX.match(raw)
        prefixed = m is not None
        body = (raw[m.end() :] if m else raw).strip()
        if not body:
            if prefixed:
                cur = None  # "=========" alone closes a report
            continue
        if len(body) > 4000:  # a pathological line: not a report line
            continue
        if "SUMMARY:" in body:
            s = _ERROR_SUMMARY.search(body)
            if s:
                error_summary = (error_summary or 0) + (_int(s.group(1)) or 0)
                lines.append(lineno)
                continue
            s = _RACE_SUMMARY.search(body)
            if s:
                race_summary = (_int(s.group(2)) or 0, _int(s.group(3)) or 0)
                lines.append(lineno)
                continue
            s = _LEAK_SUMMARY.search(body)
            if s:
                leak_allocs = _int(s.group(2)) or 0
                lines.append(lineno)
                continue
        rec = _header(body, lineno)
        if rec is None and prefixed and cur is None and _HW.match(body):
            # hardware exceptions have free-form first lines; only trust them inside a report
            rec = _Rec("memcheck", "hardware-exception", lineno, body)
        if rec is not None:
            recs.append(rec)
            cur = rec
            lines.append(lineno)
            continue
        if cur is None:
            # a partial paste: detail lines of a memcheck report whose header was not copied
            headless = (
                (body.startswith("at ") and (prefixed or "by thread" in body))
                or body.startswith("by thread (")
                or (body.startswith("Address 0x") and "out of bounds" in body)
            )
            if not headless:
                continue
            cur = _Rec("memcheck", "invalid-access", lineno, "")
            recs.append(cur)
        if _detail(cur, body):
            lines.append(lineno)

    # headerless fragments: what the details say fills in the kind
    for r in recs:
        if r.kind == "invalid-access":
            if r.allocation is not None or r.out_of_bounds or r.misaligned:
                r.space = "global" if r.allocation is not None or r.space is None else r.space
                r.kind = f"invalid-{r.space}-access"
            if not r.message:
                r.message = "(report header not in the log)"
    recs = [r for r in recs if r.kind != "invalid-access" or r.address or r.thread]

    if not recs and error_summary is None and race_summary is None and not banner:
        return None

    tool = tool_m.group(1) if tool_m else None
    if tool is None:
        # memcheck is the default tool; any record only another tool reports names that tool
        tool = next((r.tool for r in recs if r.tool not in (None, "memcheck")), None)
        # only racecheck prints a RACECHECK SUMMARY (a pasted summary line alone still names the tool)
        tool = tool or ("racecheck" if race_summary is not None else "memcheck")
    records = tuple(r.freeze(tool) for r in recs)

    errors = sum(1 for r in records if r.severity == "error")
    warnings = sum(1 for r in records if r.severity == "warning")
    if error_summary is not None:
        error_count = error_summary
    elif race_summary is not None:
        error_count = race_summary[0]
    else:
        error_count = errors
    warning_count = race_summary[1] if race_summary is not None else warnings

    kinds: list[str] = []
    for record in records:
        if record.kind not in kinds:
            kinds.append(record.kind)
    access_rec = next((r for r in records if r.access or r.space), None)
    alloc_rec = next((r for r in recs if r.relation), None)
    leak_count = sum(1 for r in records if r.kind == "leak")
    return SanitizerFacts(
        lines=tuple(sorted(set(lines)))[:_MAX_LINES],
        tool=tool,
        error_count=error_count,
        warning_count=warning_count,
        kinds=tuple(kinds),
        first_kind=records[0].kind if records else None,
        access=access_rec.access if access_rec else None,
        space=access_rec.space if access_rec else None,
        access_size=access_rec.size if access_rec else None,
        kernel=next((r.kernel for r in records if r.kernel), None),
        out_of_bounds=any(r.out_of_bounds for r in recs),
        misaligned=any(r.misaligned for r in recs),
        allocation_relation=alloc_rec.relation if alloc_rec else None,
        allocation_distance_bytes=alloc_rec.distance if alloc_rec else None,
        # the records' own hazard counts, else the summary's (errors + warnings) when only it was pasted
        race_hazards=sum(r.hazards for r in records if r.kind.startswith("race-"))
        or (sum(race_summary) if race_summary is not None else 0),
        barrier_error=any(r.kind.startswith("barrier-") for r in records),
        uninitialized=any(r.kind.startswith("uninitialized-") for r in records),
        leaks=max(leak_count, leak_allocs),
        api_error=next((r.api_error for r in recs if r.api_error), None),
        records=records,
    )
