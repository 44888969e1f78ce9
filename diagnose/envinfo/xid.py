"""Xid numbers: what each means and what an operator does about it.

One table serves the log collector and NVML's Xid events alike: ``diagnose/data/xid.yaml``
(from NVIDIA's Xid documentation; its header names the sources).  ``hardware`` says whether the
Xid on its own points at the machine — a hardware or driver fault (the ``gpu-hardware-fault``
failure mode) — rather than at the program that was running: Xid 13, 31 and 43 are usually the
program's own illegal access, and kdiag must not blame the machine for them; "mixed" Xids (several
causes, none dominant) do not blame the machine on their own either.

>>> meaning(79).hardware, meaning(31).hardware
(True, False)
>>> hardware_xids([13, 48, 31])
(48,)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Xid:
    number: int
    name: str
    hardware: bool
    action: str


@functools.cache
def _table() -> dict[int, Xid]:
    from diagnose.collectors.environment import xid_table

    return {
        n: Xid(
            number=n,
            name=str(e.get("description") or e.get("name") or f"Xid {n}"),
            hardware=e.get("origin") in ("hardware", "driver") and not e.get("application_fault"),
            action=str(e.get("action") or "look it up in NVIDIA's Xid catalog"),
        )
        for n, e in xid_table().items()
    }


def meaning(xid: int) -> Xid:
    return _table().get(xid, Xid(xid, "see NVIDIA's Xid catalog", False, "look it up in NVIDIA's Xid catalog"))


def hardware_xids(xids: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x for x in xids if meaning(x).hardware)
