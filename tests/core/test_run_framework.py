"""A controlled run of a Triton kernel is Triton code, whatever else its log holds.

The run compiles every launched ``@triton.jit`` kernel for the target GPU, and that compile's ptxas ``-v``
lines ("ptxas info : Used 23 registers") are in the evidence's log: read alone they say CUDA C++, and a
rule's fix for CUDA C++ (``cudaGetLastError()``, ``(n + threads - 1) / threads`` blocks) was given for a
Triton kernel (found by a blind set of kernels, the split-K row sum among them)."""

from __future__ import annotations

from diagnose.explain import framework
from diagnose.run.atomic_updates import first

PTXAS = "ptxas info    : Compiling entry function 'split_row_sum' for 'sm_90a'\nptxas info    : Used 23 registers\n"


def test_a_run_with_triton_launches_is_triton_even_beside_ptxas_lines() -> None:
    base = {"log_text": PTXAS, "compiler_tool": "ptxas"}
    assert framework(base) == "cuda"  # a bare ptxas log is CUDA C++'s
    assert framework({**base, "run_launches": 2, "run_interpreter": True}) == "triton"


def test_a_cuda_file_run_without_triton_launches_stays_cuda() -> None:
    assert (
        framework({"log_text": PTXAS, "compiler_tool": "ptxas", "run_launches": 0, "run_target": "cuda-file"}) == "cuda"
    )


def test_atomic_updates_are_read_from_code_not_comments() -> None:
    assert first("x = 1  # tl.atomic_add(out, 1) would race\n") is None
    assert first("    tl.atomic_max(out_ptr + i, v)\n") == "tl.atomic_max at line 1: tl.atomic_max(out_ptr + i, v)"
    assert (first("  // atomicAdd(&s, 1);\n  atomicAdd_block(&s, v);\n") or "").startswith("atomicAdd_block at line 2")
