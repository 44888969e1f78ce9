"""Extension builds left out of a run on a machine without a GPU (``kdiag run`` of a submission whose CUDA
sources compiled cleanly but which builds them inside a function, not when the module is imported).

A CPU build of torch cannot build or load a CUDA extension.  Whether the submission's forward needs one
is a fact about the submission: when ``torch.utils.cpp_extension.load_inline`` / ``load`` is never called,
what ran here is what a GPU would run (the output of a fast path that never reaches the kernel is still
the submission's output); when it is called, the run says nothing about the kernel.  Each call is
recorded in ``<out_dir>/extension_calls.json`` (read by the parent) and refused with an error at once,
instead of a build that cannot succeed here.

The child runs under the CUDA emulation (harness/emulate.py: ``x.is_cuda`` is true, ``.cuda()`` stays on the CPU)
and ``torch.cuda.is_available()`` says true: a submission that asks whether it is on a GPU takes the GPU's path,
which builds the extension (recorded) or fails, never a CPU fallback a GPU run would not take.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

CALLS_FILE = "extension_calls.json"
#: with stand-ins: the extension functions the submission called (a stand-in's function was called)
USED_FILE = "extension_used.json"


class StandIn:
    """What a build returns with stand-ins (a submission that builds its extension when it is imported): the
    module's functions can be looked up, and stored, but calling one records it and raises, as the kernel cannot
    run here.  A forward that never calls one runs here what a GPU runs."""

    def __init__(self, module: str, out_dir: Path) -> None:
        self._module, self._out_dir = module, out_dir

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        module, out_dir = self._module, self._out_dir

        def call(*args: Any, **kwargs: Any) -> Any:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / USED_FILE).write_text(json.dumps([f"{module}.{name}"]))
            raise RuntimeError(f"kdiag: {module}.{name} is the CUDA extension's function: it needs a GPU")

        return call


def install(out_dir: Path, stand_in: bool = False) -> None:
    """Record every build; refuse it, or (``stand_in``) return a :class:`StandIn` for the module."""
    import torch
    from torch.utils import cpp_extension

    setattr(torch.cuda, "is_available", lambda: True)  # noqa: B010
    calls: list[str] = []

    def stub(name: str, fn: Any) -> Any:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            module = kwargs.get("name") or (args[0] if args else "")
            calls.append(f"torch.utils.cpp_extension.{name}({module!r})")
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / CALLS_FILE).write_text(json.dumps(calls))
            if stand_in:
                return StandIn(str(module), out_dir)
            raise RuntimeError(f"kdiag: torch.utils.cpp_extension.{name} not run: no GPU and a CPU build of torch")

        return call

    for name in ("load_inline", "load"):
        fn = getattr(cpp_extension, name, None)
        if fn is not None:
            setattr(cpp_extension, name, stub(name, fn))
