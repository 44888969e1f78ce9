"""Families added from tools' own message catalogues rather than from a report: Triton's launch without the allocator
that device-side tensor descriptors need (triton/runtime/_allocation.py), ptxas's two instruction modifiers the
PTX ISA does not combine (strings of bin/ptxas), ATen's other wordings of operands on two devices (strings of
libtorch_cpu.so), and PyTorch's own Python-level checks: a CPU build's CUDA stream and NVTX stubs, TorchInductor with
a Triton too old or no GPU backend, a Windows extension build without MSVC.  Each is tested on its tool's wording, on a
report that printed it where the corpus has one, and on nearby lines it must not take."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import assert_family_answers, finding_rules


@pytest.mark.parametrize(
    ("text", "category", "rule"),
    [
        # triton 3.7.1 runtime/_allocation.py, as a launch prints it
        (
            '  File "/usr/lib/python3/site-packages/triton/runtime/_allocation.py", line 20, in __call__\n'
            '    raise RuntimeError("Kernel requires a runtime memory allocation, but no allocator was set. " +\n'
            "RuntimeError: Kernel requires a runtime memory allocation, but no allocator was set. Use "
            "triton.set_allocator to specify an allocator.\n",
            "kernel-logic",
            "triton-runtime-allocator-not-set",
        ),
        # corpus/holdout82 h82b-vllm-fused-moe-cg-evict-last-ptxas (vLLM's fused MoE kernel through Triton)
        (
            "ERROR 03-27 12:41:06 [core.py:344] ptxas /tmp/tmp6qa78v4o.ptx, line 605; error   : Modifier "
            "'.evict_last' cannot be combined with modifier '.cg'\n"
            "ptxas fatal   : Ptx assembly aborted due to errors\n",
            "kernel-logic",
            "ptxas-ptx-semantic-error",
        ),
        # torch 2.13.0 torch/cuda/streams.py and torch/cuda/nvtx.py in a CPU build
        ("RuntimeError: torch.cuda.Stream requires CUDA support\n", "environment", "torch-not-compiled-with-cuda"),
        (
            "RuntimeError: NVTX functions not installed. Are you sure you have a CUDA build?\n",
            "environment",
            "torch-not-compiled-with-cuda",
        ),
        # torch 2.13.0 torch/_inductor/runtime/triton_heuristics.py and triton_helpers.py
        (
            "torch._inductor.exc.InductorError: RuntimeError: Installed triton version too old, please upgrade\n",
            "environment",
            "torch-inductor-triton-missing",
        ),
        ("RuntimeError: Could not find an active GPU backend\n", "environment", "torch-inductor-no-gpu-backend"),
        # torch 2.13.0 libtorch_cpu.so: ATen's other wordings of two operands on two devices
        (
            "RuntimeError: add: expected 'other' to be a CPU tensor, but got a CUDA tensor\n",
            "runtime-assumption",
            "torch-operands-device-check",
        ),
        (
            "RuntimeError: grid_sampler(): expected input and grid to be on same device, but input is on cuda:0 and "
            "grid is on cpu\n",
            "runtime-assumption",
            "torch-operands-device-check",
        ),
        (
            "RuntimeError: index_copy_(): self, index and source expected to be in the same device, but got (self) "
            "cuda:0, (index) cpu, (source) cuda:0\n",
            "runtime-assumption",
            "torch-operands-device-check",
        ),
        # torch 2.13.0 torch/utils/cpp_extension.py on Windows
        ("RuntimeError: MSVC is required to load C++ extensions\n", "environment", "torch-extension-needs-msvc"),
    ],
)
def test_a_family_answers(text: str, category: str, rule: str) -> None:
    assert_family_answers(text, category, rule)


@pytest.mark.parametrize(
    ("text", "not_rule"),
    [
        # the program setting its allocator, as a debug print says
        (
            "[kernels] triton.set_allocator: using torch.empty for runtime memory allocation\n",
            "triton-runtime-allocator",
        ),
        # a test's name that says what it checks, not a failure
        ("test_inputs_expected_to_be_on_same_device PASSED\n", "torch-operands-device-check"),
        # ptxas's verbose output of a clean build
        ("ptxas info    : Used 32 registers, 384 bytes cmem[0]\n", "ptxas-ptx-semantic-error"),
    ],
)
def test_nearby_lines_are_not_taken(text: str, not_rule: str) -> None:
    rules = finding_rules(text)
    assert not any(r.startswith(not_rule) for r in rules), rules
