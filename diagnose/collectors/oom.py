"""Out-of-memory messages → :class:`~diagnose.facts.OomFacts`, every figure in bytes.

Recognised (wording from the sources that print them):

- PyTorch's caching allocator (``c10/cuda/CUDACachingAllocator.cpp``), new form (torch
  >= 2.1; 2.1 spelled it "total capacty")::

    CUDA out of memory. Tried to allocate X. GPU N has a total capacity of X of which X is free.
    [Process P has X memory in use. | Including non-PyTorch memory, this process has X memory in use. ]...
    [X allowed; ]Of the allocated memory X is allocated by PyTorch, [with X allocated in private
    pools (e.g., CUDA Graphs), ]and X is reserved by PyTorch but unallocated.

  and the old form ``(GPU N; X total capacity; X already allocated; X free; [X allowed; ]X
  reserved in total by PyTorch)`` (older still: ``X cached)``).  HIP and XPU builds print the
  same with their own prefix.
- CuPy: ``Out of memory allocating 1,073,741,824 bytes (allocated so far: 2,147,483,648 bytes).``
- TensorFlow: ``ResourceExhaustedError: OOM when allocating tensor ...`` and the BFC allocator's
  ``ran out of memory trying to allocate 3.00GiB (rounded to 3221225472)``.
- generic: ``cudaErrorMemoryAllocation``, ``CUDA_ERROR_OUT_OF_MEMORY``, ``CUDA error: out of
  memory``, legacy ``cuda runtime error (2) : out of memory``, MatConvNet's ``[out of memory error]``, Vulkan's
  ``VK_ERROR_OUT_OF_DEVICE_MEMORY``, TensorRT's ``Error Code 2: OutOfMemory``.

"Process P has X memory in use" names *other* processes (torch compares P with its own
pid); they are summed into ``other_process_bytes``.  Inside a container the pid namespace
differs, so the job's own process can appear as "Process P" and no "this process" figure is
printed: rules should read ``other_process_bytes`` with ``process_bytes is None`` as "maybe self".

A real sample (``FoundationVision/GenerateU#10``, torch 2.1):

    torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 496.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 235.06 MiB is free. Process 20398 has 14.52 GiB memory in use. Of the allocated memory 14.06 GiB is allocated by PyTorch, and 330.42 MiB is reserved by PyTorch but unallocated. ...

>>> f = parse("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; "
...           "14.37 GiB already allocated; 5.75 MiB free; 14.61 GiB reserved in total by PyTorch)")
>>> f.kind, f.requested_bytes, f.free_bytes, f.allocated_bytes
('torch', 20971520.0, 6029312.0, 15429670010.88)
>>> f = parse("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
...           "capacity of 79.15 GiB of which 10.69 MiB is free. Process 2847 has 12.00 GiB memory in use. "
...           "Including non-PyTorch memory, this process has 67.13 GiB memory in use. Of the allocated "
...           "memory 65.52 GiB is allocated by PyTorch, and 1.11 GiB is reserved by PyTorch but unallocated.")
>>> f.other_process_bytes == 12 * 2**30, f.other_process_count, round(f.process_bytes / 2**30, 2)
(True, 1, 67.13)
>>> parse("cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes "
...       "(allocated so far: 2,147,483,648 bytes).").requested_bytes
1073741824.0
>>> parse("no memory problem here") is None
True

Faiss names the size of the device allocation that failed (``milvus-io/milvus#331``):

>>> parse("Error: 'err == cudaSuccess' failed: failed to cudaMalloc 4096000000 bytes (error 2 out of memory)").requested_bytes
4096000000.0

MatConvNet's own wording (``layumi/2016_super_resolution#15``):

>>> parse("vl::impl::nnconv_forward_blas: getWorkspace [out of memory error] .").kind
'generic'
"""

from __future__ import annotations

import dataclasses
import re

from diagnose.collectors.gate_words import gate
from diagnose.collectors.negation import hypothetical, negated
from diagnose.facts import OomFacts

_UNITS = {"bytes": 1, "b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "kb": 1e3, "mb": 1e6, "gb": 1e9}
_SIZE = r"(\d[\d,]*(?:\.\d+)?)\s*(bytes|KiB|MiB|GiB|TiB)"

_HINTS = (
    "out of memory",
    "Out of memory",
    "OOM when allocating",
    "ran out of memory",
    "cudaErrorMemoryAllocation",
    "CUDA_ERROR_OUT_OF_MEMORY",
    "Tried to allocate",
    "OUT_OF_DEVICE_MEMORY",
    "OutOfDeviceMemory",
    "out_of_memory",
    "Maximum pool size exceeded",
    "Out of memory error on GPU",
    ": OutOfMemory",
    "is allocated by PyTorch",
)
_TORCH_HEAD = re.compile(r"(?:CUDA|HIP|XPU|MPS)? ?out of memory\. Tried to allocate " + _SIZE, re.IGNORECASE)
# the figures without their "CUDA out of memory." head (a log cut at the line start, or quoted)
_TORCH_BARE = re.compile(r"Tried to allocate " + _SIZE + r"(?= \(GPU \d+; | \(GPU \d+ ?;|\. GPU \d+ has a total)")
# the allocator's figures after their head was cut off (a harness that keeps the last few hundred characters of an
# error): "... has X memory in use. [Including non-PyTorch memory, this process has X memory in use. ]Of the allocated
# memory X is allocated by PyTorch": words only torch's out-of-memory message prints
_TORCH_TAIL = re.compile(r"has " + _SIZE + r" memory in use\. (?:[^.\n]{0,200}\. )?Of the allocated memory " + _SIZE)
_NEW_TOTAL = re.compile(r"has a total capac(?:i)?ty of " + _SIZE + r"(?: of which " + _SIZE + r" is free)?")
_OTHER_PROC = re.compile(r"Process (\d+) has " + _SIZE + r" memory in use")
_SELF_PROC = re.compile(r"this process has " + _SIZE + r" memory in use")
_NEW_ALLOC = re.compile(r"Of the allocated memory " + _SIZE + r" is allocated by PyTorch")
_NEW_RESERVED = re.compile(_SIZE + r" is reserved by PyTorch but unallocated")
_OLD = re.compile(
    r"\(GPU \d+; " + _SIZE + r" total capacity; " + _SIZE + r" already allocated; " + _SIZE + r" free;"
    r"(?: " + _SIZE + r" allowed;)? " + _SIZE + r" (reserved in total by PyTorch|cached)"
)
_CUPY = re.compile(r"Out of memory allocating ([\d,]+) bytes(?: \(allocated so far: ([\d,]+) bytes\))?")
# CuPy < 7: "out of memory to allocate 1073741824 bytes (total 12373894656 bytes)" (cupy/cupy#1912)
_CUPY_OLD = re.compile(r"out of memory to allocate (\d+) bytes(?: \(total (\d+) bytes\))?")
# TensorFlow's stream executor: "failed to allocate 17.79G (19104890880 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY"
_TF_DEVICE = re.compile(r"failed to allocate [\d.]+[KMGT]? \((\d+) bytes\) from device")
# Faiss's device allocations (gpu/utils/MemorySpace.cpp allocMemorySpaceV: "failed to cudaMalloc %zu bytes (error %d
# %s)"; gpu/StandardGpuResources.cpp: "Failed to cudaMalloc %zu bytes on device %d (error %d %s)")
_FAISS_MALLOC = re.compile(r"\b[Ff]ailed to cudaMalloc (\d+) bytes\b")
#: RMM's wording of a failed device allocation (rmm/mr/device/cuda_memory_resource.hpp: "out_of_memory: CUDA error
#: (failed to allocate N bytes) at: ...")
_RMM_BYTES = re.compile(r"\bfailed to allocate (\d+) bytes\b")
#: PaddlePaddle's request and what was left (cuda_allocator.cc), sizes as it prints them ("18.062744MB"), read as
#: binary multiples (apart from _UNITS, whose "MB" is decimal; the two differ by under 10 %, which no rule turns on)
_PADDLE = re.compile(
    r"Cannot allocate ([\d.]+)\s*(B|KB|MB|GB|TB) memory on GPU \d+,(?:[^\n]*?)available memory is only ([\d.]+)\s*(B|KB|MB|GB|TB)"
)
_PADDLE_UNITS = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}
_TF_BFC = re.compile(r"ran out of memory trying to allocate [\d.]+\s*[KMGT]?i?B(?: \(rounded to (\d+)\))?")
# TensorFlow's device properties, printed when the session starts (tensorflow/core/common_runtime/gpu/
# gpu_device.cc, "Found device N with properties:"): TF <= 1.3 "Total memory: 1.95GiB" and "Free memory: 1.93GiB"
# on lines of their own, TF 1.4 to 1.14 "totalMemory: 10.91GiB freeMemory: 10.75GiB" on one line
# (strings::HumanReadableNumBytes: B, KiB, MiB, GiB, TiB)
_TF_NUM = r"(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|TiB)"
_TF_PROPS = re.compile(
    r"(?m)^[ \t]*Total memory: "
    + _TF_NUM
    + r"[ \t]*\n[ \t]*Free memory: "
    + _TF_NUM
    + r"|\btotalMemory: "
    + _TF_NUM
    + r"\s+freeMemory: "
    + _TF_NUM
)
# the BFC allocator's stats, dumped with its allocation summary when it runs out (bfc_allocator.cc,
# "Stats: \nLimit:  N\nInUse:  N", bytes; tensorflow/tensorflow#11915)
_TF_STATS = re.compile(r"\bStats:\s*\n[ \t]*Limit:[ \t]+(\d+)[ \t]*\n[ \t]*InUse:[ \t]+(\d+)")
#: other processes holding at most this share of the device are ruled out as the cause
_OTHERS_NEGLIGIBLE = 0.1
_GENERIC = re.compile(
    r"cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|CUDA error: out of memory|"
    r"cuda runtime error \(2\) : out of memory|THCudaCheck FAIL .* error=2 : out of memory|"
    # cudaGetErrorString(cudaErrorMemoryAllocation) is "out of memory": a project's own check macro prints it
    # after the call or the code ("CUDA error 2 in file … line 169: out of memory", "cudaMalloc failed: out of memory")
    r"\b(?:CUDA|[Cc]uda|cuda\w+|cu\w*Malloc\w*)\b[^\n]{0,200}?\bout of memory\b|"
    # ... or before the call, at the start of its line: the widely copied CHECK_CUDA_ERROR macro prints
    # "CUDA Runtime Error at: FILE:LINE", then cudaGetErrorString's text and the call ("out of memory cudaMalloc(...)")
    r"(?<![^\n])[ \t]*out of memory[ \t]+cu\w*(?:Malloc|Alloc)\w*\(|"
    # MatConvNet's context error (matlab/src/bits/data.cu, vl::Context::setError: "<what failed> [<getErrorMessage>]",
    # with the calls that passed it on before it: "vl::impl::nnconv_forward_blas: getWorkspace [out of memory error]");
    # vlErrorOutOfMemory is what a failed cudaMalloc (or malloc) of its buffers returns
    r"\bvl(?:::|_nn)\w[^\n]{0,200}?\[out of (?:GPU )?memory error\]|"
    # Vulkan's status for an allocation the GPU's memory cannot hold (VkResult VK_ERROR_OUT_OF_DEVICE_MEMORY;
    # vulkan-hpp's exception "ErrorOutOfDeviceMemory"; Omniverse's renderer "VkResult: ERROR_OUT_OF_DEVICE_MEMORY"
    # after "Out of GPU memory allocating resource")
    r"\b(?:VK_)?ERROR_OUT_OF_DEVICE_MEMORY\b|\bErrorOutOfDeviceMemory\b|"
    # TensorRT's error recorder (its ErrorCode and the failure's name, from the builder's or runtime's memory
    # manager: "[virtualMemoryBuffer.cpp::resizePhysical::144] Error Code 2: OutOfMemory (no further information)")
    r"\bError Code \d+: OutOfMemory\b|"
    # cuew's description of CUDA_ERROR_OUT_OF_MEMORY before the queue operation or driver call (Blender Cycles'
    # "Out of memory in CUDA queue enqueue (...)", "CUDA error: Out of memory in cuMemAlloc(...), line 568")
    r"\bOut of memory in (?:CUDA queue \w|cu[A-Z]\w*\()|"
    # RAPIDS' memory manager (include/rmm/detail/error.hpp: rmm::out_of_memory, what() "std::bad_alloc: out_of_memory:
    # RMM failure at: FILE:LINE: reason"; its pool resource's reason "Maximum pool size exceeded", RMM_FAIL in
    # mr/device/pool_memory_resource.hpp) and HeavyDB's buffer manager (DataMgr/BufferMgr/BufferMgr.cpp: "ALLOCATION
    # failed to find <n>B throwing out of memory <manager>", before it throws OutOfMemory)
    r"\bout_of_memory: (?:RMM failure|CUDA error)\b|\bMaximum pool size exceeded\b|"
    # PaddlePaddle's allocator (paddle/fluid/memory/allocation/cuda_allocator.cc: "Out of memory error on GPU %d. Cannot
    # allocate %s memory on GPU %d, %s memory has been allocated and available memory is only %s.")
    r"\bOut of memory error on GPU \d+\. Cannot allocate\b|"
    r"\bALLOCATION failed to find \d+B throwing out of memory\b|"
    # a program's own report that the GPU ran out, in its words: the device named before "out of memory" on one
    # line (GPU miners and provers: "the GPU #0 assert: out of memory", "Exceeding GPU memory! | Failed to create
    # buffer (out of memory)"), after its own check or allocation failed
    r"\b(?:GPU|gpu|VRAM|[Dd]evice)\b[^\n]{0,80}?\b(?:assert|[Ff]ailed|[Ee]rror|[Ee]xceed\w*|[Uu]nable)\b[^\n]{0,80}?\bout of memory\b"
)
# TensorFlow's BFC allocator warns and retries: "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.26GiB
# … The caller indicates that this is not a failure, but may mean that there could be performance gains if more
# memory were available." (tensorflow/core/common_runtime/bfc_allocator.cc) — not an out-of-memory failure
_NOT_A_FAILURE = "The caller indicates that this is not a failure"
_WINDOW = 2000  # characters of a (possibly wrapped) torch message read after its head


def to_bytes(number: str, unit: str) -> float:
    """``("14.37", "GiB")`` → bytes.

    >>> to_bytes("1,073,741,824", "bytes"), to_bytes("5.75", "MiB")
    (1073741824.0, 6029312.0)
    """
    return float(number.replace(",", "")) * _UNITS[unit.lower()]


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _torch_tail(text: str, m: re.Match[str]) -> OomFacts:
    """torch's out-of-memory figures without their head: what this process and the others held, no request or total.

    >>> f = parse("s 314992 has 7.02 GiB memory in use. Including non-PyTorch memory, this process has 17.10 GiB memory"
    ...           " in use. Of the allocated memory 12.76 GiB is allocated by PyTorch, and 3.76 GiB is reserved by"
    ...           " PyTorch but unallocated.")
    >>> f.kind, round(f.process_bytes / 2**30, 2), f.requested_bytes, f.other_process_bytes
    ('torch', 17.1, None, None)
    """
    start = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 400)  # the figures before it on its line
    other, count, process, allocated, reserved = _held(" ".join(text[start : m.end() + _WINDOW].split()))
    return OomFacts(
        lines=(_line_of(text, m.start()),),
        kind="torch",
        held_by_others_bytes=other,
        process_bytes=process,
        allocated_bytes=allocated,
        reserved_unallocated_bytes=reserved,
        other_process_bytes=other,
        other_process_count=count,
    )


def _held(tail: str) -> tuple[float | None, int, float | None, float | None, float | None]:
    """What the allocator's message says was held, read up to its "reserved by PyTorch but unallocated": the other
    processes' total and count, this process's, PyTorch's allocated and its reserved but unallocated."""
    end = tail.find("is reserved by PyTorch but unallocated")
    tail = tail[: end + 40] if end >= 0 else tail[:600]
    other, count = None, 0
    for p in _OTHER_PROC.finditer(tail):
        other = (other or 0.0) + to_bytes(p[2], p[3])
        count += 1
    sp, na, nr = _SELF_PROC.search(tail), _NEW_ALLOC.search(tail), _NEW_RESERVED.search(tail)
    return (
        other,
        count,
        to_bytes(sp[1], sp[2]) if sp else None,
        to_bytes(na[1], na[2]) if na else None,
        to_bytes(nr[1], nr[2]) if nr else None,
    )


def _torch(text: str, m: re.Match[str]) -> OomFacts:
    start = m.start()
    # the message may be wrapped over several lines; read it as one
    window = " ".join(text[start : start + _WINDOW].split())
    requested = to_bytes(m[1], m[2])
    total = free = process = allocated = reserved_unalloc = other = None
    count = 0
    old = _OLD.search(window)
    if old and old.start() < 80:
        total = to_bytes(old[1], old[2])
        allocated = to_bytes(old[3], old[4])
        free = to_bytes(old[5], old[6])
        if old[11] != "cached":  # "X reserved in total": reserved - allocated is unallocated
            reserved_unalloc = max(0.0, to_bytes(old[9], old[10]) - allocated)
        else:  # "X cached" was already the unallocated part
            reserved_unalloc = to_bytes(old[9], old[10])
    else:
        nt = _NEW_TOTAL.search(window)
        if nt:
            total = to_bytes(nt[1], nt[2])
            if nt[3]:
                free = to_bytes(nt[3], nt[4])
            other, count, process, allocated, reserved_unalloc = _held(window[nt.end() :])
    unaccounted = None
    if total is not None and free is not None:
        counted = process if process is not None else (allocated or 0.0) + (reserved_unalloc or 0.0)
        if process is not None or allocated is not None:
            unaccounted = max(0.0, total - free - counted)
    held = other  # "Process N has X": the others; without it, what neither this process holds nor is free
    if held is None and None not in (total, free, process):
        held = max(0.0, (total or 0.0) - (free or 0.0) - (process or 0.0))
    return OomFacts(
        lines=(_line_of(text, start),),
        kind="torch",
        held_by_others_bytes=held,
        others_ruled_out=_others_ruled_out(total, held, process),
        requested_bytes=requested,
        total_bytes=total,
        free_bytes=free,
        process_bytes=process,
        allocated_bytes=allocated,
        reserved_unallocated_bytes=reserved_unalloc,
        other_process_bytes=other,
        other_process_count=count,
        unaccounted_bytes=unaccounted,
    )


#: a training loop's progress counter (Keras' "Epoch 3/10", PyTorch examples' "Epoch: [3][100/500]", Chainer's
#: "Epoch: [3]", Lightning's "step 1200", "iteration 40", "Iter 500"): the word, then its number
_PROGRESS = re.compile(r"(?i)\b(?:epoch|step|iter(?:ation)?)\b\s*(?:[:=#]\s*)?\[?\s*(\d{1,9})\b(?![.,]\d)")


def progress_before(text: str, line: int) -> str | None:
    """The last progress line above line ``line`` whose counter is at 2 or more (the job got through
    earlier steps before the failure), stripped; None when there is none.

    >>> progress_before("Epoch: [3] Speed: 3099 samples/sec\\nout of memory\\n", 2)
    'Epoch: [3] Speed: 3099 samples/sec'
    >>> progress_before("Epoch 1/10\\nout of memory\\n", 2) is None
    True
    """
    for raw in reversed(text.split("\n")[: max(line - 1, 0)][-200:]):
        m = _PROGRESS.search(raw) if len(raw) <= 2000 else None
        if m and int(m[1]) >= 2:
            return raw.strip()[:200]
    return None


def parse(text: str) -> OomFacts | None:
    """The first out-of-memory report in ``text``, or ``None``; with the progress line before it, when the
    log shows the job ran a while first."""
    facts = _parse(text)
    if facts is None or not facts.lines:
        return facts
    progress = progress_before(text, facts.lines[0])
    return dataclasses.replace(facts, progress=progress) if progress else facts


#: whether the log holds one of them, from one pass over it (diagnose.collectors.gate_words)
_has_hint = gate(_HINTS)


def _named_at(m: re.Match[str]) -> int:
    """Where a match names the failure: its "out of memory" (a match may start at an earlier CUDA word)."""
    return m.start() + max(0, m.group(0).lower().rfind("out of memory"))


def _parse(text: str) -> OomFacts | None:
    if not _has_hint(text):
        return None
    if _NOT_A_FAILURE in text:  # blank the allocator's warnings, keeping every other line where it is
        text = "\n".join("" if _NOT_A_FAILURE in line else line for line in text.split("\n"))
    m = _TORCH_HEAD.search(text) or _TORCH_BARE.search(text)
    if m:
        return _torch(text, m)
    if "is allocated by PyTorch" in text:
        t = _TORCH_TAIL.search(text)
        if t:
            return _torch_tail(text, t)
    if "Out of memory allocating" in text:
        c = _CUPY.search(text)
        if c:
            return OomFacts(
                lines=(_line_of(text, c.start()),),
                kind="cupy",
                requested_bytes=to_bytes(c[1], "bytes"),
                allocated_bytes=to_bytes(c[2], "bytes") if c[2] else None,
            )
    if "out of memory to allocate" in text:
        c = _CUPY_OLD.search(text)
        if c:
            return OomFacts(
                lines=(_line_of(text, c.start()),),
                kind="cupy",
                requested_bytes=float(c[1]),
                allocated_bytes=float(c[2]) if c[2] else None,  # CuPy's "total" is what its pool already holds
            )
    if "OOM when allocating" in text or "ran out of memory trying to allocate" in text:
        t = _TF_BFC.search(text)
        pos = text.find("OOM when allocating")
        lines = {_line_of(text, pos)} if pos >= 0 else set()
        if t:
            lines.add(_line_of(text, t.start()))
        return _tensorflow_figures(
            text,
            OomFacts(
                lines=tuple(sorted(lines)), kind="tensorflow", requested_bytes=float(t[1]) if t and t[1] else None
            ),
        )
    torchish = next((m for m in re.finditer(r"(?:CUDA|HIP) out of memory", text) if not _unsaid(text, m.start())), None)
    if torchish:  # torch's message without the figures (cut, or an older wording)
        return OomFacts(lines=(_line_of(text, torchish.start()),), kind="torch")
    g = next((m for m in _GENERIC.finditer(text) if not _unsaid(text, _named_at(m))), None)
    if g:
        p = _PADDLE.search(text) if "Cannot allocate" in text else None
        if p:
            u = _PADDLE_UNITS
            return OomFacts(
                lines=(_line_of(text, g.start()),),
                kind="generic",
                requested_bytes=float(p[1]) * u[p[2]],
                free_bytes=float(p[3]) * u[p[4]],
            )
        d = _TF_DEVICE.search(text) or _FAISS_MALLOC.search(text) or _RMM_BYTES.search(text)
        return OomFacts(lines=(_line_of(text, g.start()),), kind="generic", requested_bytes=float(d[1]) if d else None)
    return None


def _unsaid(text: str, pos: int) -> bool:
    """The out of memory named at ``pos`` is what was expected instead, or one that may happen (advice, a condition)."""
    return negated(text, pos) or hypothetical(text, pos)


def _others_ruled_out(total: float | None, held: float | None, own: float | None) -> bool:
    """Whether the figures leave other processes at most a tenth of the device: what they held is known and
    small, or this process itself holds nine tenths of it."""
    if not total:
        return False
    if held is not None and held <= _OTHERS_NEGLIGIBLE * total:
        return True
    return own is not None and own >= (1 - _OTHERS_NEGLIGIBLE) * total


def _tensorflow_figures(text: str, facts: OomFacts) -> OomFacts:
    """TensorFlow's own figures around its out-of-memory report: the device's total and free memory when the
    session started (one device printed: with several, which one failed is not said) and the BFC allocator's
    pool and use; the lines they are on join the report's.

    >>> f = _tensorflow_figures("Total memory: 1.95GiB\\nFree memory: 1.93GiB\\nOOM when allocating tensor", OomFacts())
    >>> round(f.total_bytes / 2**30, 2), round(f.held_by_others_bytes / 2**30, 2), f.others_ruled_out, f.lines
    (1.95, 0.02, True, (1, 2))
    """
    lines = set(facts.lines)
    total = free = held = limit = in_use = None
    props = list(_TF_PROPS.finditer(text))
    if len(props) == 1:
        p = props[0]
        g = p.groups()
        total, free = (
            (to_bytes(g[0], g[1]), to_bytes(g[2], g[3])) if g[0] else (to_bytes(g[4], g[5]), to_bytes(g[6], g[7]))
        )
        held = max(0.0, total - free)
        lines |= set(range(_line_of(text, p.start()), _line_of(text, p.end()) + 1))
    stats = _TF_STATS.search(text)
    if stats:
        limit, in_use = float(stats[1]), float(stats[2])
        lines |= set(range(_line_of(text, stats.start()) + 1, _line_of(text, stats.end()) + 1))
    return dataclasses.replace(
        facts,
        lines=tuple(sorted(lines)),
        total_bytes=total,
        free_at_start_bytes=free,
        pool_limit_bytes=limit,
        pool_in_use_bytes=in_use,
        held_by_others_bytes=held,
        others_ruled_out=_others_ruled_out(total, held, limit),
    )
