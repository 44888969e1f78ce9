"""GPU limits by arch and by name, from the table in ``diagnose/data/gpus.yaml``.

``lookup`` accepts what people and tools write: a GPU name ("H100", "h100-sxm", "A10G", NVML's
"NVIDIA H100 80GB HBM3"), an arch ("sm_90", "sm_90a", "compute_90", "sm90") or a compute
capability ("9.0").  An arch gives the arch's limits with no SM count or memory size.

>>> lookup("H100").smem_per_block_optin
232448
>>> lookup("9.0").arch, lookup("sm_90a").arch, lookup("NVIDIA H100 80GB HBM3").key
('sm_90', 'sm_90', 'h100-sxm')
>>> lookup("A10G").sm_count, lookup("a10g").arch
(80, 'sm_86')
>>> "bf16" in lookup("sm_75").dtypes, "bf16" in lookup("sm_80").dtypes
(False, True)
>>> lookup("Z80")
Traceback (most recent call last):
...
diagnose.envinfo.gpuspec.UnknownGpu: unknown GPU or arch 'Z80'; known GPUs: ...; archs: sm_70, ...
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "gpus.yaml"


class UnknownGpu(LookupError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class GpuSpec:
    key: str  # "h100-sxm", or the arch ("sm_90") for an arch lookup
    display: str
    arch: str  # "sm_90"
    cc: str  # "9.0"
    family: str
    sm_count: int | None
    memory_bytes: float | None
    memory_type: str | None
    smem_per_block_default: int
    smem_per_block_optin: int
    smem_per_sm: int
    regs_per_thread: int
    regs_per_block: int
    regs_per_sm: int
    max_threads_per_block: int
    max_threads_per_sm: int | None
    max_blocks_per_sm: int | None
    warp_size: int
    max_block_dims: tuple[int, int, int]
    max_grid_dims: tuple[int, int, int]
    max_cluster_size: int | None
    dtypes: tuple[str, ...]
    features: tuple[str, ...]
    arch_specific: tuple[str, ...]  # features that need the "a" target (sm_90a, sm_100a)
    unverified: tuple[str, ...]  # fields no source confirmed
    sources: tuple[str, ...]  # full citations

    @property
    def cc_tuple(self) -> tuple[int, int]:
        major, minor = self.cc.split(".")
        return int(major), int(minor)


@functools.cache
def _table() -> dict[str, Any]:
    import yaml  # only when a spec is asked for: kdiag env does not need it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with DATA.open() as fh:
        data: dict[str, Any] = yaml.load(fh, Loader=loader)
    return data


def _norm(name: str) -> str:
    s = name.strip().lower()
    s = re.sub(r"\b(nvidia|geforce|tesla)\b", " ", s)
    s = re.sub(r"[\s_/]+", "-", s.strip())
    return re.sub(r"-+", "-", s).strip("-")


def _arch_of(text: str) -> str | None:
    """The arch of "sm_90a", "compute_90", "sm90" or "9.0" ("sm_90"); None when it is no arch."""
    s = text.strip().lower()
    m = re.fullmatch(r"(?:sm|compute)_?(\d{2,3})[af]?", s)
    if m:
        return f"sm_{m.group(1)}"
    m = re.fullmatch(r"(\d{1,2})\.(\d)", s)
    if m:
        return f"sm_{m.group(1)}{m.group(2)}"
    return None


def _arch_spec(arch: str) -> GpuSpec:
    t = _table()
    a = t["archs"][arch]
    c = t["common"]
    cites = t["sources"]
    keys = list(dict.fromkeys([*c.get("sources", []), *a.get("sources", [])]))
    return GpuSpec(
        key=arch,
        display=f"{arch} ({a['family']})",
        arch=arch,
        cc=str(a["cc"]),
        family=a["family"],
        sm_count=None,
        memory_bytes=None,
        memory_type=None,
        smem_per_block_default=int(a.get("smem_per_block_default", c["smem_per_block_default"])),
        smem_per_block_optin=int(a["smem_per_block_optin"]),
        smem_per_sm=int(a["smem_per_sm"]),
        regs_per_thread=int(a.get("regs_per_thread", c["regs_per_thread"])),
        regs_per_block=int(a.get("regs_per_block", c["regs_per_block"])),
        regs_per_sm=int(a.get("regs_per_sm", c["regs_per_sm"])),
        max_threads_per_block=int(a.get("max_threads_per_block", c["max_threads_per_block"])),
        max_threads_per_sm=a.get("max_threads_per_sm"),
        max_blocks_per_sm=a.get("max_blocks_per_sm"),
        warp_size=int(a.get("warp_size", c["warp_size"])),
        max_block_dims=tuple(a.get("max_block_dims", c["max_block_dims"])),
        max_grid_dims=tuple(a.get("max_grid_dims", c["max_grid_dims"])),
        max_cluster_size=a.get("max_cluster_size"),
        dtypes=tuple(a.get("dtypes", ())),
        features=tuple(a.get("features", ())),
        arch_specific=tuple(a.get("arch_specific", ())),
        unverified=tuple(a.get("unverified", ())),
        sources=tuple(cites.get(k, k) for k in keys),
    )


@functools.cache
def _index() -> dict[str, str]:
    """normalised name → gpu key."""
    out: dict[str, str] = {}
    for key, g in _table()["gpus"].items():
        for n in [key, g.get("display", ""), *g.get("aliases", []), *g.get("nvml_names", [])]:
            if n:
                out.setdefault(_norm(str(n)), key)
                out.setdefault(_norm(str(n)).replace("-", ""), key)
    return out


def archs() -> tuple[str, ...]:
    return tuple(_table()["archs"])


def known_names() -> tuple[str, ...]:
    return tuple(_table()["gpus"])


def lookup(name_or_sm: str) -> GpuSpec:
    """The spec of a GPU or an arch; :class:`UnknownGpu` names what is known."""
    arch = _arch_of(name_or_sm)
    if arch is not None:
        if arch not in _table()["archs"]:
            raise UnknownGpu(f"no spec for arch {arch!r} ({name_or_sm!r}); known archs: {', '.join(archs())}")
        return _arch_spec(arch)
    n = _norm(name_or_sm)
    key = _index().get(n) or _index().get(n.replace("-", ""))
    if key is None:
        raise UnknownGpu(
            f"unknown GPU or arch {name_or_sm!r}; known GPUs: {', '.join(known_names())}; archs: {', '.join(archs())}"
        )
    g = _table()["gpus"][key]
    base = _arch_spec(g["arch"])
    cites = _table()["sources"]
    return replace(
        base,
        key=key,
        display=g.get("display", key),
        sm_count=g.get("sm_count"),
        memory_bytes=g.get("memory_bytes"),
        memory_type=g.get("memory_type"),
        unverified=base.unverified + tuple(g.get("unverified", ())),
        sources=base.sources + tuple(cites.get(k, k) for k in g.get("sources", [])),
    )


def try_lookup(name_or_sm: str | None) -> GpuSpec | None:
    if not name_or_sm:
        return None
    try:
        return lookup(name_or_sm)
    except UnknownGpu:
        return None
