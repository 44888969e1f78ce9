"""The spec file every child gets from the parent (one JSON object, written by diagnose/run)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Spec:
    kind: str  # kernel-module | kernelbench | gpumode
    submission: str | None
    reference: str | None
    device: str  # cpu | cuda
    seed: int
    sizes: list[dict[str, Any]] | None  # given by the parent (GPU MODE task.yml), else the module's
    inputs_dir: Path
    out_dir: Path
    target_gpu: str | None
    uses_triton: bool
    repeat: int
    probes: list[dict[str, Any]] | None = None  # inputs child: make these probe entries instead of the sizes
    manifest: str = "manifest.json"  # kernel/reference children: the inputs manifest to read (a subset of one)
    files: list[list[str]] | None = None  # GPU MODE task.yml files: (module name, file), imported in place
    emulate_cuda: bool = False  # no GPU, a Triton target: CUDA emulated on the CPU (harness/emulate.py)
    size_overrides: dict[str, Any] | None = None  # kdiag run --size NAME=VALUE (harness/sizes.py)
    max_input_bytes: int | None = None  # inputs child: fit a KernelBench problem's inputs to this (no GPU)
    keep_sample_shape: bool = False  # inputs child: fit by the batch alone (every other size as declared)
    stub_extensions: bool = False  # no GPU: record and refuse cpp_extension builds (harness/extension_stub.py)
    extension_stand_ins: bool = False  # with stub_extensions: a build returns a stand-in module instead
    reference_out: Path | None = None  # inputs child: run the reference too, once the inputs are saved, into here


def read(argv: list[str] | None = None) -> Spec:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m harness.<child> SPEC.json\n")
        raise SystemExit(2)
    d = json.loads(Path(args[0]).read_text())
    return Spec(
        kind=d["kind"],
        submission=d.get("submission"),
        reference=d.get("reference"),
        device=d.get("device", "cpu"),
        seed=int(d.get("seed", 0)),
        sizes=d.get("sizes"),
        inputs_dir=Path(d["inputs_dir"]),
        out_dir=Path(d["out_dir"]),
        target_gpu=d.get("target_gpu"),
        uses_triton=bool(d.get("uses_triton", False)),
        repeat=int(d.get("repeat", 1)),
        probes=d.get("probes"),
        manifest=str(d.get("manifest") or "manifest.json"),
        files=d.get("files"),
        emulate_cuda=bool(d.get("emulate_cuda", False)),
        size_overrides=dict(d.get("size_overrides") or {}),
        max_input_bytes=d.get("max_input_bytes"),
        keep_sample_shape=bool(d.get("keep_sample_shape", False)),
        stub_extensions=bool(d.get("stub_extensions", False)),
        extension_stand_ins=bool(d.get("extension_stand_ins", False)),
        reference_out=Path(d["reference_out"]) if d.get("reference_out") else None,
    )


def read_manifest(inputs_dir: Path, name: str = "manifest.json") -> dict[str, Any]:
    if "/" in name or name.startswith("."):
        raise ValueError(f"bad manifest name {name!r}")
    return json.loads((inputs_dir / name).read_text())


def prepare(spec: Spec) -> None:
    """What every child does before the user's code is imported: the CUDA emulation and the extension
    stubs when asked."""
    if spec.emulate_cuda:
        from harness import emulate

        emulate.install(spec.target_gpu, cuda_available=not spec.uses_triton)
    if spec.stub_extensions:
        from harness import extension_stub

        extension_stub.install(spec.out_dir, stand_in=spec.extension_stand_ins)


def emulated() -> dict[str, int]:
    """What the emulation stood in for in this child (empty when it was not installed or not used), with the
    interpreter's bfloat16 operations done in float32 (harness/triton_bf16.py) under ``BF16_PREFIX``."""
    from harness import emulate, triton_bf16

    return {**emulate.USED, **{BF16_PREFIX + k: n for k, n in triton_bf16.USED.items()}}


BF16_PREFIX = "interpreter-bf16:"
