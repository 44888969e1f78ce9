"""The checker child: the problem's own ``check_implementation`` on the kernel's outputs
(``python -m harness.check SPEC``).

GPU MODE decides correctness with trusted code from the reference (``check_implementation(data,
output) -> (good, message)``, with the problem's own tolerances).  kdiag runs it here, in a process
of its own, never the submission's: it loads the saved inputs (as the inputs child made them, not
as the kernel left them) and the outputs the kernel child saved under ``<out_dir>/outputs``, and
writes ``<out_dir>/check.json`` (``{"sizes": [{"label", "good", "message", "error"}]}``).
"""

from __future__ import annotations

import json
import sys
import traceback

from harness import _spec, arrays, protocol, sizes


def main(argv: list[str] | None = None) -> int:
    spec = _spec.read(argv)
    _spec.prepare(spec)
    proto = protocol.make(
        spec.kind, spec.submission, spec.reference, need="reference", sizes=spec.sizes, files=spec.files
    )
    manifest = _spec.read_manifest(spec.inputs_dir, spec.manifest)
    # the same sizes as the reference (--size, or a problem fitted to this machine)
    sizes.apply(getattr(proto, "ref", None), sizes.chosen(spec.size_overrides, manifest))
    result = json.loads((spec.out_dir / "result.json").read_text())
    by_label = {r.get("label"): r for r in result.get("sizes", []) if isinstance(r, dict)}
    out: dict = {"sizes": []}
    for entry in manifest["sizes"]:
        rec = by_label.get(entry["label"])
        if entry.get("error") or rec is None or rec.get("error") or "structure" not in rec:
            continue  # nothing the kernel returned to check
        row: dict = {"label": entry["label"], "good": None, "message": "", "error": None}
        try:
            data = arrays.decode(entry["structure"], spec.inputs_dir / entry["dir"], entry["tensors"], spec.device)
            output = arrays.decode(rec["structure"], spec.out_dir / "outputs" / rec["dir"], rec["tensors"], spec.device)
            got = proto.check(data, output) if isinstance(proto, protocol.GpuMode) else None
            if got is None:
                row["error"] = "the reference defines no check_implementation"
            else:
                row["good"], row["message"] = got[0], got[1][:2000]
        except Exception as e:  # the checker raised on this output (a wrong shape, a wrong type): not good
            row["error"] = f"{type(e).__name__}: {e}"[:2000]
            sys.stderr.write(f"kdiag: check_implementation raised at size {entry['label']}:\n")
            traceback.print_exc()
        out["sizes"].append(row)
    out["done"] = True
    arrays.write_json(spec.out_dir / "check.json", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
