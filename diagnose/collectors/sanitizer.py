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

The values of the first report, for explanations (rule symbols ``sanitizer_<name>``), all as
printed.  They come from the first record that locates the error (an address or a thread index),
except where said:

``message``                the first record's first line (``Invalid __global__ write of size 4 bytes``)
``address``                ``Address 0x...`` / ``Access at 0x...`` / ``Access to 0x...``; racecheck's
                           ``__shared__ 0x8c`` and a deadlock's barrier address are shared addresses
``null_address``           ``address`` when it is a null pointer plus less than 1 MiB, in a global or
                           generic access (an empty tensor's data pointer, an allocation never checked)
``misaligned_by``          the first misaligned access's address modulo its size (1 for a 4-byte write
                           at ...01; 4 for an 8-byte read at ...04, a float32 buffer read as float64)
``misaligned_mid_element`` ``misaligned_by`` is odd: the address lies inside an element of every type wider
                           than a byte (the kernel's own byte arithmetic on a typed pointer, a packed struct;
                           a view that starts at another element of 2, 4 or 8 bytes is never odd)
``thread``, ``block``      ``by thread (57,0,0) in block (0,0,0)`` (racecheck: the first thread named)
``function``               the ``at`` line's function when device frames show the kernel calling it (a
                           device function, an inlined intrinsic); None when the access is in the kernel
``source``                 ``file:line`` of the ``at`` line, else of the first device frame that has one
``device_frame``           the first ``Device Frame:`` (the caller of ``function``)
``host_frame``             the first ``Host Frame:`` outside the CUDA driver and runtime (``libcuda``,
                           ``libcudart``, ``cu*``/``cuda*`` entry points), of the first report that has
                           one: the application's (or a library's) launch, allocation or API call
``launch_library``         the closed NVIDIA library (cuSOLVER, cuBLAS, cuDNN, cuFFT, cuSPARSE, cuRAND, NCCL,
                           nvJPEG, NPP) whose shared object or entry point is that first host frame of the
                           located report, when the report prints no source line (closed code carries none):
                           the library launched the faulting kernel, so the kernel is the library's, not the
                           application's; ``launch_module`` its file as printed (``libcusolver.so.10.0``, the
                           release is its suffix) or the entry point (``cusolverDnZgesvd``)
``allocation_address``,    ``and is N bytes after the nearest allocation at 0x... of size M bytes`` (the
``allocation_size_bytes``  same report as ``allocation_relation``); initcheck's ``Unused __global__
                           memory in allocation 0x... of size M bytes``
``allocation_high_bit_bytes`` 2^k (k >= 33) when the address is a byte of the nearest allocation plus exactly
                           2^k: one high address bit set, the mark of another address region (a peer GPU's
                           or another virtual-memory reservation's mapping), not of a wrapped 32-bit index
                           (which lands *before* the buffer it indexes)
``accesses``               the accesses racecheck pairs in the first hazard: ``write at raceWAW.cu:20``,
                           ``read by thread (32,0,0) at warp_error.cu:56`` (kernel+offset without -lineinfo);
                           a long path keeps its last two components
``race_across_warps``      racecheck's paired accesses print their threads and two are in different warps
                           (``x // 32`` differs, same y and z): True; all in one warp: False (``race_one_warp``);
                           None when the threads are not printed (a block barrier or a warp barrier decides)
``leaked_bytes``           summed ``Leaked N bytes`` (or the ``LEAK SUMMARY``)
``unwritten_bytes``        initcheck's ``Not written N bytes at offset ...``

>>> f = parse('''========= Invalid __global__ write of size 4 bytes
... =========     at unaligned_kernel():0x160 in memcheck_demo.cu:6
... =========     by thread (0,0,0) in block (0,0,0)
... =========     Address 0x7f6510c00001 is misaligned''')
>>> f.tool, f.first_kind, f.access, f.space, f.access_size, f.misaligned, f.kernel
('memcheck', 'misaligned-global-write', 'write', 'global', 4, True, 'unaligned_kernel()')
>>> f.records[0].source, f.records[0].thread, f.error_count
('memcheck_demo.cu:6', '(0,0,0)', 1)
>>> f.address, f.thread, f.block, f.source
('0x7f6510c00001', '(0,0,0)', '(0,0,0)', 'memcheck_demo.cu:6')

A partial paste (real-dev.yaml gkeyll-reduction-oob-read, gkeyllorg/gkeyll#738):

>>> f = parse('''=========     at gkyl_array_integrate_op_none_1x_ser_p1+0x330
... =========     by thread (57,0,0) in block (0,0,0)
... =========     Address 0x7f7640a003a0 is out of bounds
... =========     and is 96 bytes before the nearest allocation at 0x7f7640a00400 of size 96 bytes''')
>>> f.tool, f.first_kind, f.out_of_bounds, f.allocation_relation, f.allocation_distance_bytes
('memcheck', 'invalid-global-access', True, 'before', 96)
>>> f.allocation_address, f.allocation_size_bytes, f.thread
('0x7f7640a00400', 96, '(57,0,0)')

>>> parse("RuntimeError: CUDA error: an illegal memory access was encountered") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagnose.collectors.gate_words import gate
from diagnose.collectors.sanitizer_grammar import (
    ERROR_SUMMARY,
    HW,
    LEAK_SUMMARY,
    MAX_LINES,
    PREFIX,
    RACE_SUMMARY,
    RUNNER_PREFIX,
    TOOL_FLAG,
    Rec,
    detail,
    header,
    short_path,
    to_int,
)
from diagnose.facts import SanitizerFacts

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


@dataclass
class _Scan:
    """What one pass over the log found: the records and the summary lines."""

    recs: list[Rec] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    error_summary: int | None = None
    race_summary: tuple[int, int] | None = None
    leak_allocs: int = 0
    leak_bytes: int = 0


def _scan(text: str) -> _Scan:
    sc = _Scan()
    cur: Rec | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        m = PREFIX.match(raw)
        if m is None and "=====" in raw:
            # the tool's line behind a test runner's or a log collector's prefix: read from the report prefix on
            runner = RUNNER_PREFIX.match(raw)
            if runner is not None:
                raw = raw[runner.end() :]
                m = PREFIX.match(raw)
        prefixed = m is not None
        body = (raw[m.end() :] if m else raw).strip()
        if not body:
            if prefixed:
                cur = None  # "=========" alone closes a report
            continue
        if len(body) > 4000:  # a pathological line: not a report line
            continue
        if "SUMMARY:" in body:
            s = ERROR_SUMMARY.search(body)
            if s:
                sc.error_summary = (sc.error_summary or 0) + (to_int(s.group(1)) or 0)
                sc.lines.append(lineno)
                continue
            s = RACE_SUMMARY.search(body)
            if s:
                sc.race_summary = (to_int(s.group(2)) or 0, to_int(s.group(3)) or 0)
                sc.lines.append(lineno)
                continue
            s = LEAK_SUMMARY.search(body)
            if s:
                sc.leak_allocs = to_int(s.group(2)) or 0
                sc.leak_bytes = to_int(s.group(1)) or 0
                sc.lines.append(lineno)
                continue
        rec = header(body, lineno)
        if rec is None and prefixed and cur is None and HW.match(body):
            # hardware exceptions have free-form first lines; only trust them inside a report
            # the one exception that names its memory space: shared/local memory is laid out by the kernel
            kind = "misaligned-shared-local-hw" if _MISALIGNED_SHARED_LOCAL.match(body) else "hardware-exception"
            rec = Rec("memcheck", kind, lineno, body)
        if rec is not None:
            sc.recs.append(rec)
            cur = rec
            sc.lines.append(lineno)
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
            cur = Rec("memcheck", "invalid-access", lineno, "")
            sc.recs.append(cur)
        if detail(cur, body):
            sc.lines.append(lineno)
    # headerless fragments: what the details say fills in the kind
    for r in sc.recs:
        if r.kind == "invalid-access":
            if r.allocation is not None or r.out_of_bounds or r.misaligned:
                r.space = "global" if r.allocation is not None or r.space is None else r.space
                r.kind = f"invalid-{r.space}-access"
            if not r.message:
                r.message = "(report header not in the log)"
    sc.recs = [r for r in sc.recs if r.kind != "invalid-access" or r.address or r.thread]
    return sc


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_needle = gate(_NEEDLES)


def parse(text: str) -> SanitizerFacts | None:
    if not _has_needle(text):
        return None
    tool_m = TOOL_FLAG.search(text)
    banner = "COMPUTE-SANITIZER" in text or "CUDA-MEMCHECK" in text
    sc = _scan(text)
    recs, lines, error_summary, race_summary = sc.recs, sc.lines, sc.error_summary, sc.race_summary
    leak_allocs = sc.leak_allocs

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
    leaked = max(sum(r.leak_bytes or 0 for r in recs), sc.leak_bytes)
    # the first report that locates the error (an address or a thread): the facts about "the first report"
    lead = next((r for r in recs if r.address or r.thread), None)
    first_host = next((f for f in (r.first_host_frame() for r in recs) if f), None)
    launch = _launching_library(lead or (recs[0] if recs else None))
    race = next((r for r in recs if r.accesses), None)
    return SanitizerFacts(
        lines=tuple(sorted(set(lines)))[:MAX_LINES],
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
        api_call=next((r.api_call for r in recs if r.api_error), None),
        message=next((r.message for r in recs if r.message and not r.message.startswith("(")), None),
        address=lead.address if lead else None,
        null_address=_null_address(lead),
        misaligned_by=_misaligned_by(recs),
        misaligned_mid_element=(_misaligned_by(recs) or 0) % 2 == 1,
        thread=lead.thread if lead else None,
        block=lead.block if lead else None,
        function=_called_function(lead),
        source=_source(lead),
        device_frame=lead.frames[0] if lead and lead.frames else None,
        host_frame=first_host,
        launch_library=launch[0] if launch else None,
        launch_module=launch[1] if launch else None,
        allocation_address=alloc_rec.allocation_address if alloc_rec else _unused_alloc(recs)[0],
        allocation_size_bytes=alloc_rec.allocation_size if alloc_rec else _unused_alloc(recs)[1],
        allocation_high_bit_bytes=_high_bit_past(alloc_rec),
        allocation_tail_overrun_bytes=_tail_overrun(alloc_rec),
        accesses=tuple(race.accesses) if race else (),
        race_across_warps=_across_warps(race.accesses) if race else None,
        race_one_warp=_across_warps(race.accesses) is False if race else False,
        leaked_bytes=leaked or None,
        unwritten_bytes=next((r.unwritten for r in recs if r.unwritten is not None), None),
        records=records,
    )


#: the smallest displacement read as one high address bit: past what any 32-bit index of 2-byte elements reaches
HIGH_BIT_MIN = 1 << 33


def _tail_overrun(rec: Rec | None) -> int | None:
    """Bytes an access runs past the end of the nearest allocation when it starts inside it and the allocation's
    size is not a multiple of the access size: a word (or vector) access to the partial last word of a buffer.
    memcheck places such an access "inside the nearest allocation", since its first byte is.  A size that is a
    multiple of the access (a caching allocator's segment, whose next pages another mapping holds) says nothing.

    >>> r = Rec(tool="memcheck", kind="invalid-global-read", line=1, message="", size=4, address="0x7fe9eca00a08",
    ...         relation="inside", allocation_address="0x7fe9eca00a00", allocation_size=9)
    >>> _tail_overrun(r)
    3
    >>> _tail_overrun(Rec(tool="memcheck", kind="invalid-global-write", line=1, message="", size=256,
    ...         address="0x147267fff80", relation="inside", allocation_address="0x14725400000", allocation_size=20971520))
    """
    if rec is None or rec.relation != "inside" or not rec.size or not rec.address or not rec.allocation_address:
        return None
    size, total = rec.size, rec.allocation_size
    if not total or total % size == 0:
        return None
    try:
        offset = int(rec.address, 16) - int(rec.allocation_address, 16)
    except ValueError:
        return None
    return offset + size - total if 0 <= offset < total < offset + size else None


_THREAD_IN_ACCESS = re.compile(r"\bby thread \((\d+),(\d+),(\d+)\)")


def _across_warps(accesses: tuple[str, ...] | list[str]) -> bool | None:
    """Whether racecheck's paired accesses come from threads of different warps (True) or of one warp
    (False); None when the report does not print two threads, or their y/z differ (the block's x
    extent, which decides the warp, is not in the report).

    >>> _across_warps(["write by thread (35,0,0) at warp_error.cu:44", "read by thread (32,0,0) at warp_error.cu:56"])
    False
    >>> _across_warps(["write by thread (0,0,0) at a.cu:289", "read by thread (64,0,0) at a.cu:291"])
    True
    >>> _across_warps(["write at a.cu:289", "read at a.cu:291"]) is None
    True
    """
    threads = [tuple(int(g) for g in m.groups()) for a in accesses for m in [_THREAD_IN_ACCESS.search(a)] if m]
    if len(threads) < 2 or len({t[1:] for t in threads}) > 1:
        return None
    return len({t[0] // 32 for t in threads}) > 1


def _high_bit_past(rec: Rec | None) -> int | None:
    """2^k when the address is after the nearest allocation by exactly 2^k (k >= 33) plus an offset inside
    the allocation (the NCCL report of ggml-org/llama.cpp#24489: 0x1bc00031d0 = 0x13c0000000 + 2^35 + 0x31d0,
    next to a 2 MiB allocation).

    >>> r = Rec(tool="memcheck", kind="invalid-global-write", line=1, message="", address="0x1bc00031d0",
    ...         relation="after", allocation_address="0x13c0000000", allocation_size=2097152)
    >>> _high_bit_past(r) == 2**35
    True
    >>> _high_bit_past(Rec(tool="memcheck", kind="invalid-global-write", line=1, message="", address="0x1bc02031d0",
    ...         relation="after", allocation_address="0x13c0000000", allocation_size=2097152)) is None
    True

    An allocation at least half as large as the bit says nothing: every address just past its end is a byte of it
    plus that bit (929 bytes past a 23,404,478,464-byte allocation, tensorflow/tensorflow#104077).

    >>> _high_bit_past(Rec(tool="memcheck", kind="invalid-global-write", line=1, message="", address="0x7ef7470403a0",
    ...         relation="after", allocation_address="0x7ef1d4000000", allocation_size=23404478464)) is None
    True
    """
    if rec is None or rec.relation != "after" or not rec.address or not rec.allocation_address:
        return None
    try:
        offset = int(rec.address, 16) - int(rec.allocation_address, 16)
    except ValueError:
        return None
    if offset < HIGH_BIT_MIN or not rec.allocation_size:
        return None
    bit = 1 << (offset.bit_length() - 1)
    if rec.allocation_size * 2 > bit:
        return None  # the address is not far past the end: the bit is the allocation's own size, not a region's
    return bit if offset - bit < rec.allocation_size else None


#: below this, an address is a null pointer plus an offset (an empty tensor's data pointer, a failed
#: allocation, a pointer member never set, indexed by a thread's offset): no device allocation lives in the first
#: MiB of the address space (with unified addressing they start gigabytes up; the first allocations of runtimes
#: without it start at 1 MiB)
NULL_WINDOW = 1 << 20
_MISALIGNED_SHARED_LOCAL = re.compile(r"^(?:Warp |Lane )?Misaligned Shared or Local Address\b", re.IGNORECASE)
_NULL_KINDS = ("invalid-", "uninitialized-", "hardware-exception")


def _null_address(rec: Rec | None) -> str | None:
    """The address of an access report when it is a null pointer plus a small offset.  Shared and local
    addresses are offsets in a window of their own (``__shared__ 0x0`` is the window's start), and a
    racecheck or barrier address is a shared one, so only global and generic accesses count."""
    if rec is None or not rec.address or rec.space in ("shared", "local"):
        return None
    if not rec.kind.startswith(_NULL_KINDS):
        return None
    try:
        value = int(rec.address, 16)
    except ValueError:
        return None
    return rec.address if value < NULL_WINDOW else None


def _called_function(rec: Rec | None) -> str | None:
    """The `at` line's function when the device frames show a kernel calling it (a device function,
    an inlined intrinsic); None when the access is in the kernel itself (``kernel`` already names it)."""
    if rec is None or not rec.function or not rec.frames:
        return None
    return rec.function if rec.function != rec.frames[-1] else None


def _misaligned_by(recs: list[Rec]) -> int | None:
    """The first misaligned access's address modulo its size: how far past a natural boundary it lies."""
    rec = next((r for r in recs if r.misaligned and r.address and r.size), None)
    if rec is None or rec.size is None or rec.address is None:
        return None
    try:
        return int(rec.address, 16) % rec.size
    except ValueError:
        return None


def _source(rec: Rec | None) -> str | None:
    """file:line of the innermost frame that has one (the `at` line, else the first device frame)."""
    if rec is None:
        return None
    src = rec.source or (rec.frame_sources[0] if rec.frame_sources else None)
    return short_path(src) if src else None


def _launching_library(rec: Rec | None) -> tuple[str, str] | None:
    """The closed library that launched the located report's kernel, when the report has no source line."""
    if rec is None or _source(rec) is not None:
        return None
    return rec.launching_library()


def _unused_alloc(recs: list[Rec]) -> tuple[str | None, int | None]:
    """initcheck's unused-memory report names its allocation (address and size) in the header."""
    rec = next((r for r in recs if r.kind == "unused-memory" and r.allocation_size is not None), None)
    return (rec.allocation_address, rec.allocation_size) if rec else (None, None)
