"""Sentinel-filled ``torch.empty``: memory a kernel allocates but never writes stays recognisable.

Installed in the kernel child only, before the user module is imported.  Every tensor made by
``torch.empty``, ``torch.empty_like``, ``torch.empty_strided`` or ``Tensor.new_empty`` is filled
with a NaN whose payload no arithmetic produces (floats) or with ``0xA5`` bytes (integers).  Two
things follow: an output the kernel left (partly) unwritten is *seen* as such (``count``), instead
of holding whatever the allocator had, and a submission cannot return a never-written buffer that
happens to sit where a freed tensor with the right answer used to be.
"""

from __future__ import annotations

import functools
from typing import Any

import torch

# dtype -> (integer view of the same width, the bit pattern written)
SENTINELS: dict[torch.dtype, tuple[torch.dtype, int]] = {
    torch.float64: (torch.int64, 0x7FF8A5A5A5A5A5A5),
    torch.float32: (torch.int32, 0x7FC5A5A5),
    torch.float16: (torch.int16, 0x7E5A),
    torch.bfloat16: (torch.int16, 0x7FC5),
    torch.int64: (torch.int64, -0x5A5A5A5A5A5A5A5B),  # 0xA5A5A5A5A5A5A5A5
    torch.int32: (torch.int32, -0x5A5A5A5B),  # 0xA5A5A5A5
    torch.int16: (torch.int16, -0x5A5B),  # 0xA5A5
    torch.int8: (torch.int8, -0x5B),  # 0xA5
    torch.uint8: (torch.uint8, 0xA5),
}
for _name in ("float8_e4m3fn", "float8_e5m2"):
    if hasattr(torch, _name):
        SENTINELS[getattr(torch, _name)] = (torch.uint8, 0x7F)  # NaN in both formats
# one byte is too little to tell a sentinel from a value: such outputs count only when all of it is
ONE_BYTE = frozenset(d for d, (view, _) in SENTINELS.items() if view in (torch.int8, torch.uint8))

_installed = False


def fill(t: torch.Tensor) -> torch.Tensor:
    spec = SENTINELS.get(t.dtype)
    if spec is None or t.numel() == 0:
        return t
    view, bits = spec
    with torch.no_grad():
        t.view(view).fill_(bits)
    return t


def count(t: torch.Tensor) -> tuple[int, int, str | None]:
    """(elements still holding the sentinel, elements, where: all | tail | head | scattered | None)."""
    spec = SENTINELS.get(t.dtype)
    n = t.numel()
    if spec is None or n == 0:
        return 0, n, None
    view, bits = spec
    hit = (t.detach().contiguous().view(view) == bits).reshape(-1)
    k = int(hit.sum())
    if k == 0 or (t.dtype in ONE_BYTE and k < n):
        return 0, n, None
    if k == n:
        return k, n, "all"
    idx = torch.nonzero(hit).reshape(-1)
    first, last = int(idx[0]), int(idx[-1])
    if last - first + 1 == k:
        if last == n - 1:
            return k, n, "tail"
        if first == 0:
            return k, n, "head"
    return k, n, "scattered"


def _wrap(fn: Any) -> Any:
    @functools.wraps(fn)
    def empty(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if isinstance(out, torch.Tensor):
            fill(out)
        return out

    empty.__kdiag_sentinel__ = True  # type: ignore[attr-defined]
    return empty


def install() -> None:
    global _installed
    if _installed:
        return
    for name in ("empty", "empty_like", "empty_strided"):
        setattr(torch, name, _wrap(getattr(torch, name)))
    torch.Tensor.new_empty = _wrap(torch.Tensor.new_empty)  # type: ignore[method-assign]
    _installed = True
