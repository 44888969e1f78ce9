"""Constructed software stacks for the envinfo tests: the shape stack.collect() returns, made by hand
so that results do not depend on what this machine has installed (every test that uses one says so)."""

from __future__ import annotations

from typing import Any

from diagnose.envinfo import stack


def software(
    *,
    torch_cuda: str | None = "12.8",
    arch_list: list[str] | None = None,
    cudart: int | None = 12080,
    nvcc: str | None = "12.8",
    triton: str = "3.3.1",
    pin: str | None = "triton==3.3.1",
    libcuda: bool = True,
) -> dict[str, Any]:
    """A CONSTRUCTED software part, in stack.collect()'s shape (no machine was asked)."""
    ok, failed = stack.ok, stack.failed
    archs = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"] if arch_list is None else arch_list
    return {
        "python": ok({"version": "3.11.7", "executable": "/venv/bin/python"}, "sys"),
        "packages": {"torch": ok("2.7.0", "metadata:torch")},
        "torch": {
            "version": ok("2.7.0+cu128" if torch_cuda else "2.7.0+cpu", "metadata:torch"),
            "cuda": ok(torch_cuda, "file:torch/version.py"),
            "hip": ok(None, "file:torch/version.py"),
            "triton_pin": ok(pin if torch_cuda else None, "metadata:torch Requires-Dist"),
            "arch_list": ok(archs if torch_cuda else [], "child:python -c ..."),
        },
        "triton": {"version": ok(triton, "metadata:triton"), "ptxas": ok("/venv/triton/ptxas", "file:triton")},
        "nvcc": ok(
            {"path": "/usr/local/cuda/bin/nvcc", "release": nvcc, "version": f"{nvcc}.93"}, "exec:nvcc --version"
        )
        if nvcc
        else failed("search", "nvcc not found"),
        "ptxas": ok(
            {"path": "/usr/local/cuda/bin/ptxas", "release": nvcc, "version": f"{nvcc}.93"}, "exec:ptxas --version"
        )
        if nvcc
        else failed("search", "ptxas not found"),
        "cuda_runtime": ok({"path": "/venv/nvidia/cuda_runtime/lib/libcudart.so.12", "version": cudart}, "ctypes:...")
        if cudart
        else failed("search", "no libcudart.so found"),
        "compute_sanitizer": ok({"path": "/usr/local/cuda/bin/compute-sanitizer", "version": "2025.1.0"}, "exec:..."),
        "libraries": {
            "libcuda": ok("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "ldconfig -p")
            if libcuda
            else failed("search", "libcuda.so.1 not found"),
            "libnvidia-ml": ok("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "ldconfig -p")
            if libcuda
            else failed("search", "libnvidia-ml.so.1 not found"),
            "libnvrtc": ok("/venv/nvidia/cuda_nvrtc/lib/libnvrtc.so.12", "search"),
        },
    }
