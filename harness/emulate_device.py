"""The device questions a Triton submission asks of CUDA, answered for the target GPU, without one.

Persistent kernels size their grid from ``torch.cuda.get_device_properties(...).multi_processor_count``
and wrappers enter ``with torch.cuda.device(x.device):``; on a CPU build of torch both raise "Torch
not compiled with CUDA enabled" before the kernel runs.  Under the CUDA emulation
(:mod:`harness.emulate`) they answer for the GPU the run compiles for (``--target-gpu``, H100 by
default, from kdiag's GPU table): its name, compute capability, SM count, memory and limits;
``torch.cuda.device`` is a context that does nothing and ``current_device`` is 0.
``torch.cuda.is_available()`` still says False.
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any


def properties(target_gpu: str) -> SimpleNamespace:
    from harness.triton_target import _gpu_key, _table

    table = _table()
    key = _gpu_key(target_gpu) or _gpu_key("H100") or ""
    gpu = table["gpus"].get(key) or {}
    arch = table["archs"].get(gpu.get("arch", "sm_90")) or {}
    major, minor = (int(p) for p in str(arch.get("cc", "9.0")).split("."))
    return SimpleNamespace(
        name=f"NVIDIA {gpu.get('display', key)}", major=major, minor=minor,
        multi_processor_count=int(gpu.get("sm_count") or 132), total_memory=int(gpu.get("memory_bytes") or 80 * 2**30),
        warp_size=32, max_threads_per_multi_processor=int(arch.get("max_threads_per_sm") or 2048),
        shared_memory_per_block=int(arch.get("smem_per_block_default") or 49152),
        shared_memory_per_block_optin=int(arch.get("smem_per_block_optin") or 49152),
        regs_per_multiprocessor=int(arch.get("regs_per_sm") or 65536), is_integrated=False, is_multi_gpu_board=False,
    )  # fmt: skip


def install(target_gpu: str | None, hit: Any) -> None:
    import torch

    props = properties(target_gpu or "H100")

    def get_device_properties(device: Any = None) -> SimpleNamespace:
        hit("torch.cuda.get_device_properties")
        return props

    def get_device_capability(device: Any = None) -> tuple[int, int]:
        hit("torch.cuda.get_device_capability")
        return props.major, props.minor

    def get_device_name(device: Any = None) -> str:
        hit("torch.cuda.get_device_name")
        return str(props.name)

    class device(contextlib.nullcontext):  # torch's name
        def __init__(self, dev: Any = None) -> None:
            hit("torch.cuda.device")
            super().__init__()

    # setattr: mypy sees torch's stubs, where these are functions and classes of another type
    setattr(torch.cuda, "get_device_properties", get_device_properties)  # noqa: B010
    setattr(torch.cuda, "get_device_capability", get_device_capability)  # noqa: B010
    setattr(torch.cuda, "get_device_name", get_device_name)  # noqa: B010
    setattr(torch.cuda, "device", device)  # noqa: B010
    setattr(torch.cuda, "current_device", lambda: 0)  # noqa: B010
