"""GPU names to compute capabilities (diagnose/data/gpu_names.yaml), read from the lines tools list GPUs on."""

from __future__ import annotations

import pytest

from diagnose.collectors import cuda_errors
from diagnose.collectors.symbol_lookup import cc_of_name, named_device_ccs

# names as nvidia-smi, deviceQuery and torch.cuda.get_device_name() print them, with NVIDIA's listed capability
NAMES = [
    ("NVIDIA GeForce RTX 5090", 12.0), ("NVIDIA B200", 10.0), ("NVIDIA GB200", 10.0), ("NVIDIA H100 80GB HBM3", 9.0),
    ("NVIDIA H200", 9.0), ("NVIDIA GeForce RTX 4090", 8.9), ("NVIDIA L4", 8.9), ("NVIDIA RTX 6000 Ada Generation", 8.9),
    ("NVIDIA A100-SXM4-40GB", 8.0), ("NVIDIA A10G", 8.6), ("NVIDIA GeForce RTX 3090", 8.6), ("Tesla T4", 7.5),
    ("NVIDIA GeForce RTX 2080 Ti", 7.5), ("NVIDIA GeForce GTX 1660 SUPER", 7.5), ("Quadro RTX 6000", 7.5),
    ("Tesla V100-SXM2-16GB", 7.0), ("NVIDIA TITAN V", 7.0), ("Tesla P100-PCIE-16GB", 6.0), ("GeForce GTX 1080 Ti", 6.1),
    ("TITAN Xp", 6.1), ("Tesla P40", 6.1), ("GeForce GTX 980 Ti", 5.2), ("GeForce GTX 960", 5.2),
    ("GeForce GTX 750 Ti", 5.0), ("GeForce GTX 960M", 5.0), ("Tesla K80", 3.7), ("Tesla K40m", 3.5),
    ("GeForce GTX TITAN Black", 3.5), ("GeForce GTX 680", 3.0), ("Tesla K10.G1.8GB", 3.0), ("GeForce GTX 580", 2.0),
    ("NVS 310", 2.1),
]  # fmt: skip


@pytest.mark.parametrize(("name", "cc"), NAMES)
def test_a_name_gives_its_capability(name: str, cc: float) -> None:
    assert cc_of_name(name) == cc


@pytest.mark.parametrize("name", ["GeForce GTX TITAN X", "GeForce GT 730", "GeForce GT 710", "GeForce GTX 860M"])
def test_a_name_two_architectures_share_gives_none(name: str) -> None:
    assert cc_of_name(name) is None


def test_names_are_read_on_device_lines_only() -> None:
    assert named_device_ccs("GPU 0: NVIDIA GeForce GTX 960 (UUID: GPU-5e1f)\nGPU 1: Tesla K40m (UUID: GPU-2)\n") == (
        5.2,
        3.5,
    )
    assert named_device_ccs("it works on my GTX 960 but not on the Tesla K40m\n") == ()


def test_a_named_gpu_the_toolkit_dropped_is_read_beside_no_kernel_image() -> None:
    # a device line naming a Kepler GPU and no printed capability: the name gives 3.5, which CUDA 12.0 dropped
    text = (
        'Device 0: "Tesla K40m"\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n'
    )
    facts = cuda_errors.parse(text)
    assert facts is not None
    assert (facts.device_cc, facts.device_cc_removed_in) == (3.5, "12.0")
    assert 1 in facts.lines
