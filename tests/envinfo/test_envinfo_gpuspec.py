"""The GPU spec table (diagnose/data/gpus.yaml) and lookup()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnose.envinfo.gpuspec import UnknownGpu, archs, known_names, lookup

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "nvml"

REQUIRED_ARCHS = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_120"]
REQUIRED_GPUS = [
    "V100",
    "T4",
    "A100 40GB",
    "A100 80GB",
    "A10",
    "A10G",
    "L4",
    "L40S",
    "RTX 3090",
    "RTX 4090",
    "RTX 5090",
    "H100 SXM",
    "H100 PCIe",
    "H200",
    "B200",
    "GB200",
]


@pytest.mark.parametrize(
    ("text", "key", "arch"),
    [
        ("H100", "h100-sxm", "sm_90"),
        ("h100-sxm", "h100-sxm", "sm_90"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm", "sm_90"),
        ("A10G", "a10g", "sm_86"),
        ("NVIDIA A10G", "a10g", "sm_86"),
        ("a100", "a100-80gb", "sm_80"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb", "sm_80"),
        ("Tesla T4", "t4", "sm_75"),
        ("GeForce RTX 4090", "rtx-4090", "sm_89"),
        ("rtx5090", "rtx-5090", "sm_120"),
        ("NVIDIA L4", "l4", "sm_89"),
        ("sm_90", "sm_90", "sm_90"),
        ("sm_90a", "sm_90", "sm_90"),
        ("compute_100", "sm_100", "sm_100"),
        ("9.0", "sm_90", "sm_90"),
        ("12.0", "sm_120", "sm_120"),
    ],
)
def test_lookup_forms(text: str, key: str, arch: str) -> None:
    spec = lookup(text)
    assert (spec.key, spec.arch) == (key, arch)


def test_unknown_names_list_the_known_ones() -> None:
    with pytest.raises(UnknownGpu) as e:
        lookup("Voodoo 2")
    assert "h100-sxm" in str(e.value) and "sm_90" in str(e.value)
    with pytest.raises(UnknownGpu, match="known archs"):
        lookup("sm_61")


def test_every_required_arch_and_gpu_is_there() -> None:
    assert set(REQUIRED_ARCHS) <= set(archs())
    for name in REQUIRED_GPUS:
        assert lookup(name).sm_count is None or lookup(name).sm_count > 0, name


def test_limits_per_arch() -> None:
    for a in REQUIRED_ARCHS:
        s = lookup(a)
        assert s.warp_size == 32 and s.max_threads_per_block == 1024 and s.smem_per_block_default == 48 * 1024
        assert s.smem_per_block_optin >= s.smem_per_block_default and s.smem_per_sm >= s.smem_per_block_optin
        assert s.regs_per_thread == 255 and s.regs_per_sm == 65536
        assert s.max_grid_dims == (2**31 - 1, 65535, 65535) and s.max_block_dims == (1024, 1024, 64)
        assert s.sources and all(" -- " in c or c.startswith(("NVIDIA", "ptxas ", "Triton", "AWS")) for c in s.sources)
    assert lookup("sm_80").smem_per_block_optin == 163 * 1024
    assert lookup("sm_86").smem_per_block_optin == 99 * 1024
    assert lookup("sm_90").smem_per_block_optin == 227 * 1024
    assert lookup("sm_120").smem_per_block_optin == 99 * 1024


def test_dtypes_and_features_by_arch() -> None:
    order = REQUIRED_ARCHS
    for a in order:
        s = lookup(a)
        num = int(a[3:])
        assert ("bf16" in s.dtypes) == (num >= 80), a
        assert ("fp8-e4m3" in s.dtypes) == (num >= 89), a
        assert ("wgmma" in s.features) == (num == 90), a  # Hopper only: not Blackwell
        assert ("tcgen05" in s.features) == (num in (100, 103)), a  # not the consumer sm_120
        assert ("clusters" in s.features) == (num >= 90), a
        assert ("tma" in s.features) == (num >= 90), a
    assert "wgmma" in lookup("sm_90").arch_specific


def test_named_gpus_carry_sources_and_memory() -> None:
    for key in known_names():
        s = lookup(key)
        assert s.sources, key
        assert s.arch in archs()
    assert lookup("H200").memory_bytes == 141 * 2**30
    assert lookup("H100 PCIe").sm_count == 114


def test_fixture_gpu_names_resolve() -> None:
    for f in sorted(FIX.glob("*.json")):
        for d in json.loads(f.read_text()).get("devices", []):
            spec = lookup(d["name"])
            assert spec.cc == "{}.{}".format(*d["compute_capability"]), f.name
