"""The kernel's atomic read-modify-writes, read from its source (never imported, never run).

An output accumulated with atomics (split-K partial sums, a histogram, a scatter-add) must start from a
known value: ``torch.empty`` returns whatever the memory held, so ``tl.atomic_add`` / ``atomicAdd`` onto it
adds to garbage.  Under ``kdiag run`` the kernel child fills ``torch.empty`` allocations with a NaN
sentinel, and NaN plus anything stays NaN: an output accumulated onto it looks exactly like one nothing
wrote.  The first atomic update in the target's source tells the two apart for the rules
(``rules/run/run-output-accumulated-uninitialized.yaml``).

>>> src = '''
... @triton.jit
... def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
...     pid = tl.program_id(0)
...     # tl.atomic_add in a comment is not a call
...     tl.atomic_add(out_ptr + pid % 4, tl.sum(tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))))
... '''
>>> first(src)
'tl.atomic_add at line 6: tl.atomic_add(out_ptr + pid % 4, tl.sum(tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))))'
>>> first('__global__ void k(float* out, const float* x) { atomicAdd(&out[threadIdx.x % 4], x[threadIdx.x]); }')
'atomicAdd at line 1: __global__ void k(float* out, const float* x) { atomicAdd(&out[threadIdx.x % 4], x[threadIdx.x]); }'
>>> first("out = torch.zeros(4); out.index_add_(0, idx, x)") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

#: Triton's atomics (tl.atomic_add, _max, _min, _and, _or, _xor, _xchg, _cas) and CUDA's atomicAdd & co.
_ATOMIC = re.compile(
    r"\b(?P<name>tl\.atomic_(?:add|max|min|and|or|xor|xchg|cas)|atomic(?:Add|Sub|Max|Min|And|Or|Xor|Exch|CAS)"
    r"(?:_block|_system)?)\s*\("
)
#: a line's comment (Python or C++), which may name an atomic the code does not call
_COMMENT = re.compile(r"#.*$|//.*$")
MAX_CODE = 160


def first(text: str) -> str | None:
    """``"<call> at line N: <the line>"`` for the first atomic update outside a comment, else ``None``."""
    if "atomic" not in text:
        return None
    for n, line in enumerate(text.splitlines(), 1):
        m = _ATOMIC.search(_COMMENT.sub("", line))
        if m:
            return f"{m.group('name')} at line {n}: {line.strip()[:MAX_CODE]}"
    return None


def source_fact(
    path: Path | None, suffixes: tuple[str, ...], name: str, find: Callable[[str], str | None]
) -> dict[str, object]:
    """``{name: find(the file's text)}`` for a target file with one of ``suffixes``; empty when it has another suffix,
    cannot be read, or ``find`` finds nothing: a static look at a kernel's source as one run fact."""
    if path is None or path.suffix not in suffixes:
        return {}
    try:
        found = find(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return {}
    return {name: found} if found else {}


def static_facts(path: Path | None) -> dict[str, object]:
    """The first atomic update of the target's source, as run facts (empty when there is none)."""
    return source_fact(path, (".py", ".cu", ".cuh"), "atomic_update", first)
