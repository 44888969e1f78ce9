"""The reference: expected outputs from the saved inputs.

It runs in the inputs child once the inputs are saved (:func:`run`, ``reference_out`` in the inputs
child's spec: one process and one torch import fewer per run), never in the kernel's process: the
submission cannot find the expected output in its memory, and a sticky CUDA error of the kernel
cannot take the reference down too. It reads the inputs back from their files, as
the kernel child does, so both see the same bits. Writes ``<out_dir>/<i>/*.npy`` and
``<out_dir>/manifest.json`` (``{"sizes": [{"label", "dir", "structure", "tensors", "error"}], "done"}``;
a manifest without ``done`` is a reference that died or ran out of time part way).
"""

from __future__ import annotations

import sys
import traceback

from harness import _spec, arrays, protocol, sizes


def run(spec: _spec.Spec, proto: protocol.Protocol) -> int:
    """Every size of the inputs manifest through the reference, into ``spec.out_dir``: 1 if one failed."""
    if isinstance(proto, protocol.KernelBench):
        proto.init_seed = spec.seed
    manifest = _spec.read_manifest(spec.inputs_dir, spec.manifest)
    sizes.apply(getattr(proto, "ref", None), sizes.chosen(spec.size_overrides, manifest))
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    out: dict = {"sizes": []}
    arrays.write_json(spec.out_dir / "manifest.json", out)  # begun: a crash from here on is the reference's
    failed = False
    for entry in manifest["sizes"]:
        folder = spec.out_dir / entry["dir"]
        folder.mkdir(exist_ok=True)
        record: dict = {"label": entry["label"], "dir": entry["dir"], "error": None}
        if entry.get("error"):  # a probe whose inputs could not be made: nothing to run
            record["error"] = "no inputs: " + str(entry["error"])
            record["no_inputs"] = True
            out["sizes"].append(record)
            continue
        try:
            inputs = arrays.decode(entry["structure"], spec.inputs_dir / entry["dir"], entry["tensors"], spec.device)
            expected = proto.run_reference(inputs, spec.device, int(entry.get("seed", spec.seed)))
            tensors: dict = {}
            record["structure"] = arrays.encode(expected, folder, "out", tensors)
            record["tensors"] = tensors
        except Exception as e:
            failed = True
            record["error"] = f"{type(e).__name__}: {e}"
            sys.stderr.write(f"kdiag: the reference failed at size {entry['label']}:\n")
            traceback.print_exc()
        out["sizes"].append(record)
        arrays.write_json(spec.out_dir / "manifest.json", out)
    out["done"] = True
    arrays.write_json(spec.out_dir / "manifest.json", out)
    return 1 if failed else 0
