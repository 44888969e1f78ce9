"""A symbol the linker says is defined more than once, and the library whose namespace it is in.

GNU ld prints ``multiple definition of `sym'; a.o: first defined here`` (binutils ld/ldmain.c), nvlink
``Multiple definitions of '_ZN...'`` (CUDA 5-12) or ``Multiple definition of '%s' in '%s', first defined in
'%s'`` (CUDA 13.0's catalogue), a demangled name or a mangled one.  Whose the symbol is decides the owner:
one in a CUDA library's own namespace (``thrust::``, ``cub::``, ``cutlass::``, ``cute::``, ``cuda::``; mangled
``_ZN6thrust``, ``_ZN3cub``, ...) comes from the library's header, one of the project is the project's.

>>> duplicate_symbol("nvlink error   : Multiple definitions of '_ZN6thrust6detail7backend4cuda6detail11b40c_thrust14vote_reductionE'")
('_ZN6thrust6detail7backend4cuda6detail11b40c_thrust14vote_reductionE', 'thrust')
>>> duplicate_symbol("b.cpp:(.text+0x0): multiple definition of `cub::CUB_200400___CUDA_ARCH_LIST___NS::Debug(cudaError, char const*, int)'; a.o")[1]
'cub'
>>> duplicate_symbol("nvlink error   : Multiple definition of 'counter' in 'b.o', first defined in 'a.o'")
('counter', None)
>>> duplicate_symbol("step 1 loss 0.3") is None
True
"""

from __future__ import annotations

import re

#: the linkers' duplicate-symbol messages, the symbol quoted (` ' or ")
_DUPLICATE = re.compile(r"(?i)\bmultiple definitions? of\s+[`'\"]([^`'\"\n]{1,400})[`'\"]")
#: CUDA libraries whose headers are compiled into the project: namespace -> its mangled prefix
_LIBRARIES = ("thrust", "cub", "cutlass", "cute", "cuda")
_MANGLED = re.compile(r"^_ZN[KL]?(\d+)([A-Za-z_]\w*)")


def _library(symbol: str) -> str | None:
    m = _MANGLED.match(symbol)
    if m:
        name = m.group(2)[: int(m.group(1))]
        return name if name in _LIBRARIES else None
    head = symbol.split("::", 1)[0].strip() if "::" in symbol else ""
    return head if head in _LIBRARIES else None


def duplicate_symbol(text: str) -> tuple[str, str | None] | None:
    """The first symbol a linker says is defined more than once, and the CUDA library whose namespace it is in
    (None for the project's own); None when the log has no such message."""
    m = _DUPLICATE.search(text)
    if not m:
        return None
    symbol = m.group(1).strip()
    return symbol, _library(symbol)
