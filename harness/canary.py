"""Guard regions around the tensors the runner hands a kernel: an overrun leaves a visible mark.

``guard(t, "x")`` returns a copy of ``t`` (same shape, strides, dtype and device) placed in the
middle of a larger byte buffer whose head and tail are filled with a canary pattern; ``check()``
compares every guard with its pattern after the run and lists the ones that were overwritten.
It works wherever torch does (CPU under the Triton interpreter, CUDA on a GPU): the fill and the
comparison are tensor operations on the tensor's own device.

Why it is needed: neither the Triton interpreter nor a GPU checks bounds.  A kernel storing past
the end of its output without a mask corrupts whatever lies there, silently; with the guards, what
lies there is a known pattern, and the first byte that differs says which side was hit and how far
from the data it was.

The pattern repeats 16 bytes (``PATTERN``), chosen so that no common value (0, 1.0, -1, NaN, the
0xA5 sentinel of :mod:`harness.sentinel`) matches it in any dtype, and so that a copy of the data
shifted into the guard does not look like the canary.  Guards are a multiple of 256 bytes, so the
guarded tensor keeps the allocator's alignment (64 bytes on CPU, 256 on CUDA): Triton specialises
pointers on 16-byte alignment, and a guard must not change the specialisation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

PATTERN = bytes.fromhex("c3 5a 96 3c e1 1e 69 d2 0f f0 87 78 b4 4b 2d a6")
GUARD_BYTES = 64 * 1024  # each side; covers a missing mask on a BLOCK of 16 Ki fp32


@dataclass
class _Guard:
    name: str
    buffer: torch.Tensor  # uint8: [before | data | after]
    before: int  # bytes
    data_bytes: int
    after: int
    elem: int


_guards: list[_Guard] = []


def _pattern(n: int, device: Any) -> torch.Tensor:
    reps = -(-n // len(PATTERN))
    return torch.tensor(list(PATTERN), dtype=torch.uint8, device=device).repeat(reps)[:n]


def _extent(t: torch.Tensor) -> int:
    """Elements between the first and the last one the tensor can address (its strides included)."""
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True) if s > 0)


def guard(tensor: torch.Tensor, name: str, *, guard_bytes: int = GUARD_BYTES) -> torch.Tensor:
    """A copy of ``tensor`` between two canary-filled guard regions (registered for ``check``)."""
    t = tensor.detach()
    elem = t.element_size()
    data_bytes = _extent(t) * elem
    before = -(-max(guard_bytes, 256) // 256) * 256
    after = before + (-data_bytes) % 256
    buf = torch.empty(before + data_bytes + after, dtype=torch.uint8, device=t.device)
    buf[:before] = _pattern(before, t.device)
    buf[before + data_bytes :] = _pattern(after, t.device)
    buf[before : before + data_bytes].zero_()  # gaps between strided elements: defined, not canary
    data = buf[before : before + data_bytes].view(t.dtype)
    out = data.as_strided(t.shape, t.stride())
    out.copy_(t)
    _guards.append(_Guard(name, buf, before, data_bytes, after, elem))
    if tensor.requires_grad:
        out.requires_grad_(True)
    return out


def guards() -> list[str]:
    """Names of the guarded tensors, in the order they were guarded."""
    return [g.name for g in _guards]


def check(start: int = 0) -> list[dict[str, Any]]:
    """Every guard region that no longer holds the canary, with where it was hit first.

    ``first_offset_bytes`` / ``first_offset_elems`` count from the data's edge: 0 is the first
    byte after the end (side ``after``); -1 the last byte before the start (side ``before``).
    """
    out: list[dict[str, Any]] = []
    for g in _guards[start:]:
        head = g.buffer[: g.before]
        tail = g.buffer[g.before + g.data_bytes :]
        for side, region in (("before", head), ("after", tail)):
            bad = (region != _pattern(region.numel(), region.device)).nonzero().flatten()
            if bad.numel() == 0:
                continue
            if side == "after":
                first = int(bad[0].item())
                last = int(bad[-1].item())
                first_elems = first // g.elem
                extent = last + 1
            else:
                first = int(bad[-1].item()) - g.before
                last = int(bad[0].item()) - g.before
                first_elems = -((-first + g.elem - 1) // g.elem)
                extent = -last
            out.append(
                {
                    "name": g.name,
                    "side": side,
                    "first_offset_bytes": first,
                    "first_offset_elems": first_elems,
                    "corrupted_bytes": int(bad.numel()),
                    "extent_bytes": extent,  # from the data's edge to the farthest byte hit
                    "guard_bytes": int(region.numel()),
                }
            )
    return out


def reset() -> None:
    """Forget every guard (tests; a child guards once)."""
    _guards.clear()
