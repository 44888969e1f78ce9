"""The kernel child: run the submission on the saved inputs (``python -m harness.kernel SPEC``).

Before the user module is imported: Triton launch hooks (``harness.triton_hooks``, when present
and the target uses Triton) and sentinel-filled ``torch.empty`` (:mod:`harness.sentinel`).  Then,
per size: load the inputs (each placed between canary guards by ``harness.canary`` when present),
run the kernel, and record

- the outputs (``<out_dir>/outputs/<i>/*.npy``) — compared by the parent, not here;
- which inputs the kernel changed (hashes after the call against the inputs child's manifest);
- how much of each output still holds the sentinel (never written);
- with ``repeat`` > 1, whether a second run on fresh copies gave other bits (nondeterminism).

``<out_dir>/result.json`` is rewritten after every size, so a crash keeps what came before; it
is written by the harness, never by the submission.  A kernel that exits the process (``sys.exit``,
``os._exit``) leaves no complete result: the parent calls that ``no-result``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from typing import Any

from harness import _spec, arrays

# bound before the user module runs: a submission that patches the timer does not change ours
_perf_counter = time.perf_counter


def _same_storage(a: Any, b: Any) -> bool:
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except Exception:
        return False


def main(argv: list[str] | None = None) -> int:
    spec = _spec.read(argv)
    _spec.prepare(spec)
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"sizes": [], "done": False, "canary": [], "hooks": [], "device": spec.device}

    # imported only for Triton targets: it imports triton
    hooks: Any = importlib.import_module("harness.triton_hooks") if spec.uses_triton else None
    if hooks is not None:
        try:
            hooks.install(spec.out_dir, target_gpu=spec.target_gpu or "H100")
            result["hooks"].append("triton_hooks")
        except Exception as e:  # the hooks are evidence, not a precondition of running the kernel
            sys.stderr.write(f"kdiag: triton hooks not installed: {type(e).__name__}: {e}\n")
            hooks = None

    import torch

    from harness import protocol, sentinel

    sentinel.install()
    result["hooks"].append("sentinel")
    from harness import canary

    result["hooks"].append("canary")

    manifest = _spec.read_manifest(spec.inputs_dir, spec.manifest)
    failed = False
    try:
        proto = protocol.make(
            spec.kind, spec.submission, spec.reference, need="kernel", sizes=spec.sizes, files=spec.files
        )
        if isinstance(proto, protocol.KernelBench):
            proto.init_seed = spec.seed
        from harness import sizes

        sizes.apply(getattr(proto, "sub", None), sizes.chosen(spec.size_overrides, manifest))
        for entry in manifest["sizes"]:
            rec = _one_size(spec, proto, entry, canary, torch, sentinel, hooks)
            failed = failed or rec.get("error") is not None
            result["sizes"].append(rec)
            arrays.write_json(spec.out_dir / "result.json", result)
            if rec.get("sticky") and entry.get("kind"):
                # a probe left the CUDA context broken: every later probe would fail for that reason.
                # The parent runs the rest in a fresh child.
                break
    finally:
        if hooks is not None:
            try:
                hooks.finish()
            except Exception as e:
                sys.stderr.write(f"kdiag: triton hooks finish failed: {type(e).__name__}: {e}\n")
    if canary is not None:
        result["canary"] = arrays.jsonable(canary.check())
    result["emulated"] = _spec.emulated()
    result["done"] = True
    arrays.write_json(spec.out_dir / "result.json", result)
    return 1 if failed else 0


def _load(spec: _spec.Spec, entry: dict[str, Any], canary: Any) -> Any:
    value = arrays.decode(entry["structure"], spec.inputs_dir / entry["dir"], entry["tensors"], spec.device)
    layout = entry.get("layout") or {}
    laid = set(layout.get("tensors") or ())
    kind = str(layout.get("kind") or "")

    def place(name: str, t: Any) -> Any:
        if name in laid and kind:
            from harness import probes

            # the probe's layout: the canary guards the carrier buffer, the kernel gets the view of it
            carrier, view = probes.lay_out(t, kind)
            return view(canary.guard(carrier, name) if canary is not None else carrier)
        return canary.guard(t, name) if canary is not None else t

    if canary is not None or laid:
        value = arrays.map_leaves(value, entry["structure"], place)
    return value


def _sync(torch: Any, device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _one_size(
    spec: _spec.Spec, proto: Any, entry: dict[str, Any], canary: Any, torch: Any, sentinel: Any, hooks: Any = None
) -> dict:
    rec: dict[str, Any] = {"label": entry["label"], "dir": entry["dir"], "error": None}
    if entry.get("error"):  # a probe whose inputs could not be made
        rec["no_inputs"] = True
        return rec
    folder = spec.out_dir / "outputs" / entry["dir"]
    folder.mkdir(parents=True, exist_ok=True)
    seed = int(entry.get("seed", spec.seed))
    guards_before = len(canary.guards()) if canary is not None else 0
    oob_before = hooks.oob_totals() if hooks is not None and hasattr(hooks, "oob_totals") else None
    try:
        try:
            inputs = _load(spec, entry, canary)
            t0 = _perf_counter()
            out = proto.run_kernel(inputs, spec.device, seed)
            _sync(torch, spec.device)
            rec["kernel_s"] = _perf_counter() - t0
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
            rec["raised_in_submission"] = _raised_in(e, spec.submission)
            rec["sticky"] = spec.device.startswith("cuda") and _cuda_error(e)
            sys.stderr.write(f"kdiag: the kernel raised at size {entry['label']}:\n")
            traceback.print_exc()
            return rec
        return _after_run(spec, proto, entry, canary, torch, sentinel, rec, inputs, out, folder, seed)
    finally:
        # per size: the accesses the hooks saw and the guards hit during it (the child's totals stay as they were)
        if oob_before is not None:
            rec["oob"] = hooks.oob_since(oob_before)
        if canary is not None:
            try:
                rec["canary"] = arrays.jsonable(canary.check(guards_before))
            except Exception as e:
                rec["canary_error"] = repr(e)


def _raised_in(exc: BaseException, submission: str | None) -> bool:
    """Was the innermost Python frame of the exception in the submission's own file (an explicit check)?"""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None or not submission:
        return False
    try:
        from pathlib import Path

        return Path(last.tb_frame.f_code.co_filename).resolve() == Path(submission).resolve()
    except OSError:
        return False


def _cuda_error(exc: BaseException) -> bool:
    text = f"{type(exc).__name__}: {exc}"
    return any(s in text for s in ("CUDA error", "AcceleratorError", "illegal memory access", "CUDA_ERROR"))


def _after_run(
    spec: _spec.Spec,
    proto: Any,
    entry: dict[str, Any],
    canary: Any,
    torch: Any,
    sentinel: Any,
    rec: dict[str, Any],
    inputs: Any,
    out: Any,
    folder: Any,
    seed: int,
) -> dict:
    in_leaves = arrays.leaves(inputs, entry["structure"])
    out_tensors = [v for v in _flat(out) if isinstance(v, torch.Tensor)]
    mutated = []
    for name, t in in_leaves:
        if not isinstance(t, torch.Tensor) or arrays.digest(t) == entry["tensors"][name]["sha256"]:
            continue
        if proto.may_write(inputs) and any(_same_storage(t, o) for o in out_tensors):
            continue  # GPU MODE: an output buffer passed in data
        mutated.append(name)
    rec["mutated"] = mutated

    try:
        tensors: dict = {}
        rec["structure"] = arrays.encode(out, folder, "out", tensors)
        rec["tensors"] = tensors
    except arrays.Unsupported as e:
        rec["result_invalid"] = str(e)
        return rec
    unwritten = {}
    for name, t in arrays.leaves(out, rec["structure"]):
        k, n, where = sentinel.count(t)
        if k:
            unwritten[name] = {"count": k, "total": n, "where": where}
    rec["unwritten"] = unwritten

    repeat = int(entry.get("repeat", spec.repeat))
    if repeat > 1:
        rec["nondeterministic"] = _repeat_differs(spec, proto, entry, canary, torch, rec, repeat, seed)
    return rec


def _repeat_differs(
    spec: _spec.Spec, proto: Any, entry: dict[str, Any], canary: Any, torch: Any, rec: dict, repeat: int, seed: int
) -> bool:
    """Run again on fresh copies of the inputs; True when any output bit differs."""
    folder = spec.out_dir / "outputs" / entry["dir"]
    for _ in range(repeat - 1):
        try:
            again = proto.run_kernel(_load(spec, entry, canary), spec.device, seed)
            _sync(torch, spec.device)
        except Exception:
            return False  # the first run's error (if any) is the evidence; a flaky crash is another story
        first = arrays.decode(rec["structure"], folder, rec["tensors"], "cpu")
        again_tensors = [v for v in _flat(again) if isinstance(v, torch.Tensor)]
        for (_, a), b in zip(arrays.leaves(first, rec["structure"]), again_tensors, strict=False):
            if arrays.digest(a) != arrays.digest(b):
                return True
    return False


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [x for v in value for x in _flat(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat(v)]
    return [value]


if __name__ == "__main__":
    sys.exit(main())
