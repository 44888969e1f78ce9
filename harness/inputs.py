"""The inputs child: make every size's inputs once and save them (``python -m harness.inputs SPEC``).

Writes ``<inputs_dir>/<i>/*.npy`` and ``<inputs_dir>/manifest.json``::

    {"kdiag_arrays": 1, "kind": ..., "tolerance": ..., "sizes": [
        {"label": "n=1000", "size": {"n": 1000}, "dir": "0", "structure": {...}, "tensors": {...}}]}

The kernel child and the reference both load these files, so they see identical inputs and the
kernel cannot make the inputs the reference sees. With ``reference_out`` in the spec, this child then
runs the reference too (harness/reference.py), once the inputs manifest is written: the exit code stays
the inputs' (0), and what the reference did is in its own manifest.
"""

from __future__ import annotations

import dataclasses
import inspect

from harness import _spec, arrays, protocol


def main(argv: list[str] | None = None) -> int:
    spec = _spec.read(argv)
    _spec.prepare(spec)
    proto = protocol.make(spec.kind, spec.submission, spec.reference, need="inputs", sizes=spec.sizes, files=spec.files)
    spec.inputs_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict = {
        "kdiag_arrays": 1,
        "kind": spec.kind,
        "device": spec.device,
        "seed": spec.seed,
        "tolerance": arrays.jsonable(proto.tolerance()),
        "size_params": arrays.jsonable(_size_params(proto)),
        "sizes": [],
    }
    declared = _resize(spec, proto, manifest)
    if spec.probes is not None:
        _probes(spec, proto, manifest)
        return _reference(spec, proto)
    for i, size in enumerate(declared):
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
    manifest["emulated"] = _spec.emulated()
    arrays.write_json(spec.inputs_dir / "manifest.json", manifest)
    return _reference(spec, proto)


def _reference(spec: _spec.Spec, proto: protocol.Protocol) -> int:
    """The reference over the inputs just saved, when the spec asks for it; 0 whatever it does (its failures are
    in its manifest and on stderr; a crash or a timeout leaves its manifest without ``done``)."""
    if spec.reference_out is None:
        return 0
    from harness import reference

    reference.run(dataclasses.replace(spec, out_dir=spec.reference_out, manifest="manifest.json"), proto)
    return 0


def _resize(spec: _spec.Spec, proto: protocol.Protocol, manifest: dict) -> list[dict]:
    """--size overrides, and a KernelBench problem fitted to what this machine can hold (harness/sizes.py)."""
    from harness import sizes

    overrides = dict(spec.size_overrides or {})
    manifest["size_overrides"] = arrays.jsonable(overrides)
    if spec.kind != "kernelbench":
        return sizes.override_sizes(proto.sizes(), overrides) if overrides else proto.sizes()
    ref = getattr(proto, "ref", None)
    sizes.apply(ref, overrides)
    if spec.max_input_bytes and ref is not None:
        fit = sizes.fit_batch if spec.keep_sample_shape else sizes.fit
        manifest["resized"] = arrays.jsonable(fit(ref, set(overrides), int(spec.max_input_bytes)))
    return proto.sizes()


def _size_params(proto: protocol.Protocol) -> dict:
    """Integer keyword parameters of ``make_inputs`` with their defaults: the sizes a probe may vary."""
    fn = getattr(getattr(proto, "mod", None), "make_inputs", None)
    if fn is None:
        return {}
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {
        p.name: p.default
        for p in params
        if p.name != "seed" and isinstance(p.default, int) and not isinstance(p.default, bool)
    }


def _probes(spec: _spec.Spec, proto: protocol.Protocol, manifest: dict) -> None:
    """Probe entries: a failure to make one is recorded (the probe is skipped), not fatal."""
    from harness import probes

    for i, probe in enumerate(spec.probes or []):
        folder = spec.inputs_dir / str(i)
        folder.mkdir(exist_ok=True)
        entry: dict = {key: probe[key] for key in ("label", "size", "seed", "layout", "repeat", "kind") if key in probe}
        entry["dir"] = str(i)
        try:
            seed = int(probe.get("seed", spec.seed))
            value = _make_probe_inputs(spec, proto, dict(probe.get("size") or {}), seed)
            value = probes.transform_values(value, probe.get("values"), args_only=spec.kind == "kernelbench")
            tensors: dict = {}
            entry["structure"] = arrays.encode(value, folder, "in", tensors)
            entry["tensors"] = tensors
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"[:2000]
        manifest["sizes"].append(entry)
    arrays.write_json(spec.inputs_dir / "manifest.json", manifest)


def _make_probe_inputs(spec: _spec.Spec, proto: protocol.Protocol, size: dict, seed: int) -> object:
    """A probe's inputs; KernelBench sizes are module constants: rebound for this entry, then restored."""
    if spec.kind != "kernelbench" or not size:
        return proto.make_inputs(size, spec.device, seed)
    from harness import sizes

    ref = getattr(proto, "ref", None)
    saved = {name: getattr(ref, name) for name in size if hasattr(ref, name)}
    sizes.apply(ref, size)
    try:
        return proto.make_inputs(size, spec.device, seed)
    finally:
        sizes.apply(ref, saved)


if __name__ == "__main__":
    raise SystemExit(main())
