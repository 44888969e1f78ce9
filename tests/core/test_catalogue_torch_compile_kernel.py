"""PyTorch's run-time compiled kernels (torch.cuda._compile_kernel, torch/cuda/_utils.py of torch 2.13.0):
the messages as that code prints them (run in a CPU build with the driver library and the device query stubbed),
decided by the families of diagnose/data/catalogue/torch-compile-kernel.yaml: a launch over 48 KB of dynamic
shared memory without opting in is the kernel's, an opt-in over the device's limit is decided by the concept
rules from the two figures, and a missing NVRTC is the machine's."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import decided


@pytest.mark.parametrize(
    ("text", "category", "rule"),
    [
        (
            "RuntimeError: Kernel requires 65536 bytes of shared memory (>= 48KB), but not configured. Call "
            "kernel.set_shared_memory_config(shared_mem) after compilation and before launching the kernel.\n",
            "kernel-logic",
            "torch-compiled-kernel-dynamic-smem-not-configured",
        ),
        # set_shared_memory_config against an sm_86/sm_89 opt-in limit (101376 bytes): another GPU has more
        (
            "RuntimeError: Requested shared memory (163840 bytes) exceeds device limit (101376 bytes). Consider "
            "reducing block size or shared memory usage.\n",
            "runtime-assumption",
            "concept-smem-over-device",
        ),
        # against sm_90's 232448 bytes: no GPU has more, the kernel's tiles are too large everywhere
        (
            "RuntimeError: Requested shared memory (300000 bytes) exceeds device limit (232448 bytes). Consider "
            "reducing block size or shared memory usage.\n",
            "kernel-logic",
            "concept-resource-over-every-gpu",
        ),
        ("OSError: Could not find any NVRTC library\n", "environment", "torch-nvrtc-library-not-found"),
    ],
)
def test_compiled_kernel_messages(text: str, category: str, rule: str) -> None:
    got = decided(text)
    assert (got[0], got[2]) == (category, rule)
