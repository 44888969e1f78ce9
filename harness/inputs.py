"""The inputs child: make every size's inputs once and save them (``python -m harness.inputs SPEC``).

Writes ``<inputs_dir>/<i>/*.npy`` and ``<inputs_dir>/manifest.json``::

    {"kdiag_arrays": 1, "kind": ..., "tolerance": ..., "sizes": [
        {"label": "n=1000", "size": {"n": 1000}, "dir": "0", "structure": {...}, "tensors": {...}}]}

The kernel and reference children both load these files, so they see identical inputs and the
kernel cannot make the inputs the reference sees.
"""

from __future__ import annotations

from harness import _spec, arrays, protocol


def main(argv: list[str] | None = None) -> int:
    spec = _spec.read(argv)
    proto = protocol.make(spec.kind, spec.submission, spec.reference, need="inputs", sizes=spec.sizes)
    spec.inputs_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict = {
        "kdiag_arrays": 1,
        "kind": spec.kind,
        "device": spec.device,
        "seed": spec.seed,
        "tolerance": arrays.jsonable(proto.tolerance()),
        "sizes": [],
    }
    for i, size in enumerate(proto.sizes()):
        folder = spec.inputs_dir / str(i)
        folder.mkdir(exist_ok=True)
        value = proto.make_inputs(size, spec.device, spec.seed)
        tensors: dict = {}
        struct = arrays.encode(value, folder, "in", tensors)
        manifest["sizes"].append(
            {
                "label": arrays.label(size),
                "size": arrays.jsonable(size),
                "dir": str(i),
                "structure": struct,
                "tensors": tensors,
            }
        )
    arrays.write_json(spec.inputs_dir / "manifest.json", manifest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
