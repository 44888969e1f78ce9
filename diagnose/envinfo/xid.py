"""Xid numbers: what each means and what an operator does about it.

From NVIDIA's Xid catalog (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html)
and the Dynamic Page Retirement guide (https://docs.nvidia.com/deploy/dynamic-page-retirement/),
condensed.  ``hardware`` says whether the Xid on its own points at the machine (the
``gpu-hardware-fault`` failure mode) rather than at the program that was running: Xid 13, 31 and 43
are usually the program's own illegal access, and kdiag must not blame the machine for them.

>>> meaning(79).hardware, meaning(31).hardware
(True, False)
>>> hardware_xids([13, 48, 31])
(48,)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Xid:
    number: int
    name: str
    hardware: bool
    action: str


_XIDS = {
    x.number: x
    for x in (
        Xid(
            13,
            "Graphics engine exception (often an illegal address or instruction in the program)",
            False,
            "debug the program (compute-sanitizer memcheck); if it recurs across programs, check the GPU",
        ),
        Xid(
            31,
            "GPU memory page fault (MMU fault; usually the program's illegal address)",
            False,
            "debug the program (compute-sanitizer memcheck); rerun on another GPU if it persists",
        ),
        Xid(32, "Invalid or corrupted push buffer stream", True, "check PCIe/system memory; reset the GPU"),
        Xid(
            43,
            "GPU stopped processing (a program fault ended its channel)",
            False,
            "restart the program; the GPU is usually fine",
        ),
        Xid(45, "Preemptive cleanup after an earlier error", False, "look at the Xid before it"),
        Xid(
            48,
            "Double-bit ECC error (uncorrectable DRAM error)",
            True,
            "drain the GPU, reset it; replace it if it recurs",
        ),
        Xid(61, "Internal micro-controller breakpoint/warning", True, "reset the GPU; contact support if it recurs"),
        Xid(62, "Internal micro-controller halt", True, "reset the GPU; contact support if it recurs"),
        Xid(
            63,
            "ECC page retirement or row remapping recorded",
            True,
            "reset the GPU (or reload the driver) to activate the retirement/remap",
        ),
        Xid(64, "ECC page retirement or row remapping failed", True, "drain the GPU and have it serviced"),
        Xid(74, "NVLink error", True, "reset the GPU; check NVLink/NVSwitch health"),
        Xid(
            79,
            "GPU has fallen off the bus",
            True,
            "drain the node; reset or reboot, then check power, cooling and PCIe seating",
        ),
        Xid(92, "High single-bit ECC error rate", True, "watch the ECC counters; plan a replacement"),
        Xid(
            94,
            "Contained ECC error (only the affected program is stopped)",
            True,
            "restart the program; reset the GPU when convenient to remap the row",
        ),
        Xid(
            95,
            "Uncontained ECC error (every program on the GPU is affected)",
            True,
            "drain and reset the GPU before more work runs on it",
        ),
        Xid(109, "Context switch timeout", False, "often a hung kernel; restart the program, reset if it recurs"),
        Xid(119, "GSP RPC timeout", True, "reset the GPU; update the driver if it recurs"),
        Xid(120, "GSP error", True, "reset the GPU; update the driver if it recurs"),
        Xid(140, "Unrecovered ECC error", True, "drain and reset the GPU"),
        Xid(
            154,
            "GPU recovery action changed (the driver says what the GPU needs: reset, reboot, drain)",
            True,
            "do the recovery action nvidia-smi reports",
        ),
    )
}


def meaning(xid: int) -> Xid:
    return _XIDS.get(xid, Xid(xid, "see NVIDIA's Xid catalog", False, "look it up in NVIDIA's Xid catalog"))


def hardware_xids(xids: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x for x in xids if meaning(x).hardware)
