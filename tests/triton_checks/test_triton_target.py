"""The child's compile target comes from the parent's GPU table (diagnose/data/gpus.yaml), read by path:
every GPU and arch the parent knows resolves in the harness to the same arch and shared-memory limit."""

from __future__ import annotations

import pytest

from diagnose.envinfo import gpuspec
from harness.triton_target import resolve_target


def test_every_known_gpu_and_arch_resolves_as_the_parent_says() -> None:
    names = [*gpuspec.known_names(), *gpuspec.archs(), "H100", "NVIDIA H100 80GB HBM3", "9.0", "sm_90a"]
    for name in names:
        spec, target = gpuspec.lookup(name), resolve_target(name)
        major, minor = spec.cc_tuple
        assert (target.arch, target.cc, target.smem_limit, target.display) == (
            spec.arch, major * 10 + minor, spec.smem_per_block_optin, spec.display), name  # fmt: skip


def test_an_unknown_gpu_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown target GPU"):
        resolve_target("GTX 9999 Imaginary")
    with pytest.raises(ValueError, match="no spec for arch"):
        resolve_target("sm_99")
