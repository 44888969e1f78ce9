"""CUDA streams, events and graphs under the CUDA emulation (:mod:`harness.emulate`), for a run without a GPU.

Model-generated KernelBench code often creates a ``torch.cuda.Stream`` in ``__init__`` when
``torch.cuda.is_available()`` and enters ``with torch.cuda.stream(s):`` when ``x.is_cuda``; a CPU build of torch
refuses both ("torch.cuda.Stream requires CUDA support", "Torch not compiled with CUDA enabled").  On the CPU
every operation runs in program order, which is what stream waits and event synchronisation guarantee on a GPU,
so the stand-ins here do nothing: a stream, an event, ``torch.cuda.stream(s)``, ``current_stream`` and
``default_stream``.

A CUDA graph cannot be stood in for: a replay re-runs the captured kernels on the static tensors' new
contents, which nothing on the CPU recorded.  ``torch.cuda.CUDAGraph()`` raises torch's own words for a CPU
build, as before: a submission that catches the failure takes its eager path (as it would on a GPU where
capture failed), one that does not stops there, a run that needs a GPU.
"""

from __future__ import annotations

import contextlib
from typing import Any


class Event:
    """``torch.cuda.Event``: recorded work is already done on the CPU."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing

    def record(self, stream: Any = None) -> None:
        return None

    def wait(self, stream: Any = None) -> None:
        return None

    def synchronize(self) -> None:
        return None

    def query(self) -> bool:
        return True

    def elapsed_time(self, end_event: Any) -> float:
        return 0.0


class Stream:
    """``torch.cuda.Stream``: work submitted to it runs at once, in program order."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        self.device, self.priority, self.cuda_stream = device, priority, 0

    @staticmethod
    def priority_range() -> tuple[int, int]:
        return 0, -1  # (lowest, highest), as torch reports them for a GPU

    def wait_stream(self, stream: Any) -> None:
        return None

    def wait_event(self, event: Any) -> None:
        return None

    def record_event(self, event: Any = None) -> Event:
        return event if isinstance(event, Event) else Event()

    def synchronize(self) -> None:
        return None

    def query(self) -> bool:
        return True

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def install(hit: Any) -> None:
    import torch

    class EmulatedStream(Stream):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            hit("torch.cuda.Stream")
            super().__init__(*args, **kwargs)

    class EmulatedEvent(Event):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            hit("torch.cuda.Event")
            super().__init__(*args, **kwargs)

    def stream(s: Any = None) -> contextlib.nullcontext[Any]:
        hit("torch.cuda.stream")
        return contextlib.nullcontext(s)

    def current_stream(device: Any = None) -> Stream:
        return EmulatedStream(device)

    class CUDAGraph:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            hit("torch.cuda.CUDAGraph (refused: a replay needs a GPU)")
            raise AssertionError("Torch not compiled with CUDA enabled")

    # setattr: mypy sees torch's stubs, where these are classes and functions of other types
    setattr(torch.cuda, "Stream", EmulatedStream)  # noqa: B010
    setattr(torch.cuda, "Event", EmulatedEvent)  # noqa: B010
    setattr(torch.cuda, "stream", stream)  # noqa: B010
    setattr(torch.cuda, "current_stream", current_stream)  # noqa: B010
    setattr(torch.cuda, "default_stream", current_stream)  # noqa: B010
    setattr(torch.cuda, "set_stream", lambda s: None)  # noqa: B010
    setattr(torch.cuda, "CUDAGraph", CUDAGraph)  # noqa: B010
