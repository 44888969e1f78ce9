"""harness.canary in process (torch CPU): guards keep the tensor as it was and see every overrun."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

# harness/ is the children's package, not installed with kdiag: import it from the checkout
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from harness import canary


@pytest.fixture(autouse=True)
def _fresh() -> None:
    canary.reset()


def test_guarded_copy_keeps_values_shape_strides_and_alignment() -> None:
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4).t()  # non-contiguous: strides (1, 4)
    g = canary.guard(t, "t")
    assert torch.equal(g, t) and g.stride() == t.stride() and g.dtype == t.dtype
    assert (g.data_ptr() - g.untyped_storage().data_ptr()) % 256 == 0 and g.data_ptr() % 16 == 0
    assert canary.guards() == ["t"] and canary.check() == []


def test_writes_past_either_end_are_reported_from_the_data_edge() -> None:
    g = canary.guard(torch.zeros(10, dtype=torch.float16), "x")
    flat = g.untyped_storage()
    base = g.data_ptr() - flat.data_ptr()
    raw = torch.empty(0, dtype=torch.uint8).set_(flat)
    raw[base + 20 + 4] = 0  # 4 bytes after the end: element 12 of 10 (offset 2 elements)
    raw[base - 3] = 0  # 3 bytes before the start
    hits = {h["side"]: h for h in canary.check()}
    assert hits["after"]["first_offset_bytes"] == 4 and hits["after"]["first_offset_elems"] == 2
    assert hits["before"]["first_offset_bytes"] == -3 and hits["before"]["first_offset_elems"] == -2
    assert all(h["name"] == "x" and h["corrupted_bytes"] == 1 for h in hits.values())


def test_writes_inside_the_tensor_are_not_corruption() -> None:
    g = canary.guard(torch.ones(1000), "x")
    g.mul_(3)
    assert canary.check() == []


def test_empty_and_bool_tensors() -> None:
    e = canary.guard(torch.empty(0), "e")
    b = canary.guard(torch.tensor([True, False, True]), "b")
    assert e.numel() == 0 and b.tolist() == [True, False, True]
    assert canary.check() == []
