"""The probe matrix's records: a probe, its verdict, what the children left for a batch, the matrix."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVELS = ("none", "quick", "full")
QUICK_KINDS = ("nonmultiple", "size-one", "noncontiguous", "misaligned")
FULL_KINDS = (*QUICK_KINDS, "empty", "dtype", "large", "repeat", "seed")
#: kinds whose inputs stay inside the declared contract: a failure there is the kernel's (kernel-logic)
CONTRACT_KINDS = ("repeat", "seed")
FAIL_VERDICTS = ("oob", "mismatch", "crash")
MAX_SIZE_PROBES = 18  # n-1, n+1, a prime, for up to 6 (size, kwarg) pairs
OTHER_FLOATS = {
    "float32": ("float16", "bfloat16"),
    "float16": ("bfloat16", "float32"),
    "bfloat16": ("float16", "float32"),
}
REPEATS = 3
MIN_LAYOUT_ELEMS = 16  # layout probes start from a declared size whose tensors have at least this many elements


@dataclass(frozen=True)
class Probe:
    label: str  # unique in a run: "n=4097", "transposed in0 @ rows=64,cols=4096"
    kind: str
    what: str  # what changed against the declared input, in words
    base: str  # the declared size it was derived from
    size: Mapping[str, Any] = field(default_factory=dict)  # make_inputs' size kwargs
    seed: int = 0
    values: Mapping[str, Any] | None = None  # value change the inputs child applies (harness.probes)
    layout: Mapping[str, Any] | None = None  # layout the kernel child applies
    repeat: int | None = None

    @property
    def contract(self) -> bool:
        return self.kind in CONTRACT_KINDS

    def entry(self) -> dict[str, Any]:
        """The inputs child's probe entry (see harness/probes.py)."""
        d: dict[str, Any] = {"label": self.label, "kind": self.kind, "size": dict(self.size), "seed": self.seed}
        if self.values:
            d["values"] = dict(self.values)
        if self.layout:
            d["layout"] = {"kind": self.layout["kind"], "tensors": list(self.layout["tensors"])}
        if self.repeat:
            d["repeat"] = self.repeat
        return d

    def key(self) -> str:
        e = self.entry()
        e.pop("label")
        e.pop("kind")
        return json.dumps(e, sort_keys=True, default=str)


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    verdict: str  # ok | mismatch | oob | crash | rejected | skipped-outside-contract
    figures: Mapping[str, Any] = field(default_factory=dict)
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.verdict in FAIL_VERDICTS

    def to_dict(self) -> dict[str, Any]:
        p = self.probe
        return {
            "label": p.label,
            "kind": p.kind,
            "what": p.what,
            "base": p.base,
            "inside_contract": p.contract,
            "entry": p.entry(),
            "verdict": self.verdict,
            "figures": dict(self.figures),
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Batch:
    """What the children left for a list of entries: the inputs manifest, every kernel record, the references."""

    manifest: Mapping[str, Any]
    kernel: Mapping[str, Mapping[str, Any]]  # label -> the kernel child's record (``_folder``: where its outputs are)
    reference: Mapping[str, Mapping[str, Any]]  # label -> the reference's record
    reference_dir: Path
    children: tuple[Mapping[str, Any], ...] = ()  # each child: name, exit, signal, timed out, seconds
    lost: Mapping[str, str] = field(default_factory=dict)  # label -> why the kernel child left no record
    took_s: float = 0.0


Runner = Callable[[str, Sequence[Mapping[str, Any]]], Batch]


@dataclass(frozen=True)
class Matrix:
    level: str
    results: tuple[ProbeResult, ...] = ()
    took_s: float = 0.0
    children: tuple[Mapping[str, Any], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def failures(self) -> tuple[ProbeResult, ...]:
        return tuple(r for r in self.results if r.failed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "took_s": round(self.took_s, 3),
            "children": [dict(c) for c in self.children],
            "notes": list(self.notes),
            "probes": [r.to_dict() for r in self.results],
        }

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1, default=str))


def tensor_names(struct: Any, *, args_only: bool = False) -> list[str]:
    """Tensor leaf names of a structure; KernelBench (``args_only``): those of the forward's inputs."""
    if not isinstance(struct, Mapping):
        return []
    if args_only and isinstance(struct.get("dict"), Mapping) and "args" in struct["dict"]:
        return tensor_names(struct["dict"]["args"])
    if "t" in struct:
        return [str(struct["t"])]
    out: list[str] = []
    for key in ("tuple", "list"):
        if isinstance(struct.get(key), list):
            for s in struct[key]:
                out += tensor_names(s)
    if isinstance(struct.get("dict"), Mapping):
        for s in struct["dict"].values():
            out += tensor_names(s)
    return out


def label_size(label: str) -> dict[str, int]:
    """The integer sizes a size label names (``"m=100,n=100"`` → ``{"m": 100, "n": 100}``); empty when any part of
    it is not ``name=integer``.

    >>> label_size("m=100,n=100"), label_size("transposed in0 @ n=4")
    ({'m': 100, 'n': 100}, {})
    """
    parts = [p.split("=", 1) for p in label.split(",")]
    if not all(len(p) == 2 and p[0].strip().isidentifier() for p in parts):
        return {}
    values = [v.strip() for _, v in parts]
    if not all(v.lstrip("-").isdigit() for v in values):
        return {}
    return {k.strip(): int(v) for (k, _), v in zip(parts, values, strict=True)}
