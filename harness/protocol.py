"""The target protocols behind one face: make the inputs, run the kernel, run the reference.

- ``native`` (one file): ``make_inputs(device, seed=0, **size) -> tuple``, ``kernel(*inputs)``,
  ``reference(*inputs)``, optional ``SIZES`` (list of dicts) and ``TOLERANCE``;
- ``kernelbench`` (a pair): the reference file has ``Model``, ``get_inputs()``,
  ``get_init_inputs()``; the submission ``ModelNew``.  Both models are built after
  ``torch.manual_seed(seed)`` (the run's seed), as KernelBench does, so their weights agree, once per
  process: every later call (another size, a seed probe) goes through the same instance;
- ``gpumode`` (a pair): the reference file has ``generate_input(**spec)`` and
  ``ref_kernel(data)``; the submission ``custom_kernel(data)``.

What ``make_inputs`` returns is the value saved by the inputs child; ``run_kernel`` and
``run_reference`` get it back, rebuilt from the files, in their own processes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch


def load(path: str, name: str) -> ModuleType:
    """Import a file as module ``name``, its folder first on sys.path (as running it would)."""
    p = Path(path).resolve()
    folder = str(p.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {p}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def to_device(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple | list):
        return type(value)(to_device(v, device) for v in value)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    return value


class Protocol:
    kind = ""

    def __init__(self, submission: str | None, reference: str | None, *, need: str) -> None:
        # need: "inputs" | "kernel" | "reference" -- which files this child may import
        self.submission_path = submission
        self.reference_path = reference
        self.need = need

    def sizes(self) -> list[dict[str, Any]]:
        return [{}]

    def tolerance(self) -> Any:
        return None

    def make_inputs(self, size: dict[str, Any], device: str, seed: int) -> Any:
        raise NotImplementedError

    def run_kernel(self, inputs: Any, device: str, seed: int) -> Any:
        raise NotImplementedError

    def run_reference(self, inputs: Any, device: str, seed: int) -> Any:
        raise NotImplementedError

    def may_write(self, inputs: Any) -> bool:
        """Inputs a protocol lets the kernel write (GPU MODE passes output buffers in ``data``)."""
        return False


class Native(Protocol):
    kind = "kernel-module"

    def __init__(self, submission: str | None, reference: str | None, *, need: str) -> None:
        super().__init__(submission, reference, need=need)
        assert submission is not None
        self.mod = load(submission, "kdiag_target")

    def sizes(self) -> list[dict[str, Any]]:
        declared = getattr(self.mod, "SIZES", None)
        return [dict(s) for s in declared] if declared else [{}]

    def tolerance(self) -> Any:
        return getattr(self.mod, "TOLERANCE", None)

    def make_inputs(self, size: dict[str, Any], device: str, seed: int) -> Any:
        torch.manual_seed(seed)
        made = self.mod.make_inputs(device, seed=seed, **size)
        return tuple(made) if isinstance(made, tuple | list) else (made,)

    def run_kernel(self, inputs: Any, device: str, seed: int) -> Any:
        return self.mod.kernel(*inputs)

    def run_reference(self, inputs: Any, device: str, seed: int) -> Any:
        return self.mod.reference(*inputs)


#: KernelBench's correctness tolerance by precision (atol = rtol): its eval's ``get_tolerance_for_precision``
#: (torchbench's values); older KernelBench used 1e-2 for every dtype
KERNELBENCH_TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def candidate(sub: ModuleType) -> Any:
    """The submission's model class: ``ModelNew``, else ``Model`` (a generated file that replaces the problem file, as
    some harnesses keep it, defines the problem's own class name)."""
    return sub.ModelNew if hasattr(sub, "ModelNew") else sub.Model


class KernelBench(Protocol):
    kind = "kernelbench"

    def __init__(self, submission: str | None, reference: str | None, *, need: str) -> None:
        super().__init__(submission, reference, need=need)
        assert reference is not None and submission is not None
        # the submission is imported only where it runs: the reference side never sees it
        self.ref = load(reference, "kdiag_reference") if need in ("inputs", "reference") else None
        self.sub = load(submission, "kdiag_target") if need == "kernel" else None
        self.init_seed: int | None = None  # the run's seed, for the models' weights (set by the children)
        self._models: dict[tuple[int, str, str], Any] = {}

    def tolerance(self) -> Any:
        """The reference's TOLERANCE, else the one KernelBench's own check uses for each precision."""
        declared = getattr(self.ref, "TOLERANCE", None)
        return declared if declared is not None else dict(KERNELBENCH_TOLERANCE)

    def make_inputs(self, size: dict[str, Any], device: str, seed: int) -> Any:
        assert self.ref is not None
        torch.manual_seed(seed)
        init = list(self.ref.get_init_inputs())
        torch.manual_seed(seed)
        args = list(self.ref.get_inputs())
        return {"init": to_device(init, device), "args": to_device(args, device)}

    def _forward(self, cls: Any, inputs: Any, device: str, seed: int) -> Any:
        # one instance per model and init arguments in a process, as KernelBench builds ModelNew once and
        # runs its correctness trials (new inputs each) through it: state the module keeps between calls
        # shows.  Its weights come from the run's seed (init_seed), whatever seed made the inputs, so the
        # reference (in its own process) gets the same weights.
        key = (id(cls), device, repr(inputs["init"]))
        model = self._models.get(key)
        if model is None:
            torch.manual_seed(seed if self.init_seed is None else self.init_seed)
            model = self._models[key] = cls(*inputs["init"]).to(device)
        torch.manual_seed(seed)
        with torch.no_grad():
            return model(*inputs["args"])

    def run_kernel(self, inputs: Any, device: str, seed: int) -> Any:
        assert self.sub is not None
        return self._forward(candidate(self.sub), inputs, device, seed)

    def run_reference(self, inputs: Any, device: str, seed: int) -> Any:
        assert self.ref is not None
        return self._forward(self.ref.Model, inputs, device, seed)


class GpuMode(Protocol):
    kind = "gpumode"

    def __init__(
        self, submission: str | None, reference: str | None, *, need: str, sizes: Any = None, files: Any = None
    ) -> None:
        super().__init__(submission, reference, need=need)
        assert reference is not None and submission is not None
        self.given_sizes = sizes
        from harness import assembled

        assembled.install(files, submission, with_submission=need == "kernel")
        self.ref = load(reference, "kdiag_reference") if need in ("inputs", "reference") else None
        self.sub = load(submission, "kdiag_target") if need == "kernel" else None

    def sizes(self) -> list[dict[str, Any]]:
        declared = self.given_sizes or getattr(self.ref, "SIZES", None)
        return [dict(s) for s in declared] if declared else [{}]

    def tolerance(self) -> Any:
        return getattr(self.ref, "TOLERANCE", None)

    def make_inputs(self, size: dict[str, Any], device: str, seed: int) -> Any:
        assert self.ref is not None
        torch.manual_seed(seed)
        return self.ref.generate_input(**size)

    def run_kernel(self, inputs: Any, device: str, seed: int) -> Any:
        assert self.sub is not None
        return self.sub.custom_kernel(inputs)

    def run_reference(self, inputs: Any, device: str, seed: int) -> Any:
        assert self.ref is not None
        return self.ref.ref_kernel(inputs)

    def may_write(self, inputs: Any) -> bool:
        return True

    def check(self, inputs: Any, output: Any) -> tuple[bool, str] | None:
        """The problem's own ``check_implementation(data, output)`` (None when it defines none): GPU MODE's
        returns ``(good, message)``; older problems return a message, empty when the output is right."""
        assert self.ref is not None
        fn = getattr(self.ref, "check_implementation", None)
        if fn is None:
            return None
        got = fn(inputs, output)
        if isinstance(got, tuple) and len(got) == 2:
            return bool(got[0]), str(got[1] or "")
        if isinstance(got, str):
            return got == "", got
        if isinstance(got, list | tuple):
            return not got, " ".join(map(str, got))
        return bool(got), ""


def make(
    kind: str, submission: str | None, reference: str | None, *, need: str, sizes: Any = None, files: Any = None
) -> Protocol:
    if kind == "kernel-module":
        return Native(submission, reference, need=need)
    if kind == "kernelbench":
        return KernelBench(submission, reference, need=need)
    if kind == "gpumode":
        return GpuMode(submission, reference, need=need, sizes=sizes, files=files)
    raise ValueError(f"unknown protocol {kind!r}")
