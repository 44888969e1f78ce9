"""CUDA on the CPU, for Triton targets run by Triton's interpreter on a machine without a GPU.

Most real Triton submissions follow KernelBench's example: they assert ``x.is_cuda`` and make or
move their tensors with ``.cuda()`` / ``device="cuda"``, and so do many references (GPU MODE's
``generate_input`` makes its inputs with ``device="cuda"``).  On CPU they would die before the
kernel runs.  When the parent asks for it (``emulate_cuda`` in the spec: no GPU; a Triton, plain PyTorch or
``load_inline`` target),
the children install this emulation before the user's code is imported:

- ``Tensor.is_cuda`` reports True for CPU tensors;
- ``Tensor.cuda()`` returns the tensor on the CPU; ``Tensor.to("cuda")`` (or a CUDA ``torch.device``)
  goes to the CPU;
- the tensor factories (``torch.empty``, ``randn``, ``zeros``, ``arange``, ``tensor``, ...) and
  ``torch.Generator`` given ``device="cuda"`` make CPU tensors (a CPU generator);
- ``torch.cuda.synchronize`` does nothing (nothing runs asynchronously);
- ``@triton.autotune`` does not benchmark (its timer needs a GPU driver: without one Triton raises
  "0 active drivers"): every config gets the same time, so the first config of the list is the one
  that runs, as the kernel's only launch;
- ``torch.cuda.get_device_properties`` / ``get_device_capability`` / ``get_device_name`` answer for
  the target GPU, ``with torch.cuda.device(...)`` does nothing (:mod:`harness.emulate_device`);
- ``triton.language.extra.libdevice`` functions, empty stubs under the interpreter, compute their
  numpy equivalents (:mod:`harness.triton_libdevice`).

- CUDA streams and events do nothing, and a CUDA graph is refused in torch's words for a CPU build
  (:mod:`harness.emulate_streams`).

``x.device`` says ``cpu``.  For a Triton target ``torch.cuda.is_available()`` stays False: code that asks
gets the truth.  For a plain PyTorch or ``load_inline`` target (``cuda_available``) it says True, as on the
GPU the harness runs on: a submission that creates its streams when CUDA is available and enters them when
``x.is_cuda`` would otherwise meet a state no machine has (tensors on CUDA, CUDA unavailable).  What was
emulated is counted (:data:`USED`) and the children report it, so the report says the run relied on it.
"""

from __future__ import annotations

import functools
from typing import Any

USED: dict[str, int] = {}

FACTORIES = (
    "empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange", "linspace", "eye",
    "tensor", "as_tensor", "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
    "randint_like", "empty_strided", "normal",
)  # fmt: skip


def _hit(what: str) -> None:
    USED[what] = USED.get(what, 0) + 1


def _cpu(device: Any) -> Any:
    """A CUDA device (a string, a torch.device) as the CPU; anything else as it is."""
    import torch

    if isinstance(device, str) and device.split(":")[0] == "cuda":
        _hit('device="cuda"')
        return "cpu"
    if isinstance(device, torch.device) and device.type == "cuda":
        _hit('device="cuda"')
        return torch.device("cpu")
    return device


def install(target_gpu: str | None = None, cuda_available: bool = False) -> None:
    import torch

    if getattr(torch, "_kdiag_emulated", False):
        return
    torch._kdiag_emulated = True  # type: ignore[attr-defined]

    def is_cuda(self: Any) -> bool:
        _hit("x.is_cuda")
        return self.device.type in ("cpu", "cuda")

    def cuda(self: Any, *args: Any, **kwargs: Any) -> Any:
        _hit(".cuda()")
        return self

    to = torch.Tensor.to

    @functools.wraps(to)
    def to_cpu(self: Any, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_cpu(a) for a in args)
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        return to(self, *args, **kwargs)

    def module_cuda(self: Any, *args: Any, **kwargs: Any) -> Any:
        _hit(".cuda()")
        return self

    # setattr: mypy sees torch's stubs, where these are read-only
    setattr(torch.Tensor, "is_cuda", property(is_cuda))  # noqa: B010
    setattr(torch.Tensor, "cuda", cuda)  # noqa: B010
    setattr(torch.Tensor, "to", to_cpu)  # noqa: B010
    setattr(torch.nn.Module, "cuda", module_cuda)  # noqa: B010
    _device_context_knows_the_factories()
    for name in FACTORIES:
        fn = getattr(torch, name, None)
        if fn is not None:
            setattr(torch, name, _on_cpu(fn))
    generator = torch.Generator

    class Generator(generator):  # type: ignore[misc,valid-type]
        def __new__(cls, device: Any = "cpu") -> Any:
            return generator(device=_cpu(device))

    setattr(torch, "Generator", Generator)  # noqa: B010
    setattr(torch.cuda, "synchronize", lambda *a, **k: None)  # noqa: B010
    _autotune_without_timer()
    from harness import emulate_device

    emulate_device.install(target_gpu, _hit)
    from harness import emulate_streams

    emulate_streams.install(_hit)
    if cuda_available:
        setattr(torch.cuda, "is_available", lambda: True)  # noqa: B010
        setattr(torch.cuda, "device_count", lambda: 1)  # noqa: B010
    from harness import triton_libdevice

    triton_libdevice.install(_hit)


def _untimed(kernel_call: Any, quantiles: Any = None, **kw: Any) -> Any:
    _hit("triton.autotune (its first config, untimed)")
    return [0.0] * len(quantiles) if quantiles else 0.0


def _autotune_without_timer() -> None:
    try:
        from triton.runtime import autotuner
    except Exception:  # no triton, or another layout: nothing to patch
        return
    tuner = getattr(autotuner, "Autotuner", None)
    if tuner is None or "do_bench" not in vars(tuner):
        return
    # a plain property in place of the cached one that asks the GPU driver for its benchmarker
    setattr(tuner, "do_bench", property(lambda self: _untimed))  # noqa: B010


def _device_context_knows_the_factories() -> None:
    """``with torch.device("meta")`` (how the inputs child measures a problem before making it,
    :mod:`harness.sizes`) gives its device to the factories in a set torch builds on first use, from the
    names ``torch.randn`` ... point to then.  Built after :func:`_on_cpu` replaced them, the set holds the
    wrappers, the originals they call are not in it, and the "meta" tensors are made on the CPU, memory
    and all (6 GiB for a KernelBench problem sized for a GPU).  The set is built here, from the originals."""
    try:
        from torch.utils import _device

        _device._device_constructors()
    except Exception:  # another torch layout: the context is torch's own business there
        pass


def _on_cpu(fn: Any) -> Any:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "device" in kwargs:
            kwargs["device"] = _cpu(kwargs["device"])
        return fn(*args, **kwargs)

    return call
