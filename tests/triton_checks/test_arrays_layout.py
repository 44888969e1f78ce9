"""harness.arrays in process (torch CPU): a tensor saved for the run and loaded in the child keeps its layout, so a
kernel gets the strides its inputs were made with (a GPU MODE generate_input's transposed view), not a contiguous
copy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

# harness/ is the children's package, not installed with kdiag: import it from the checkout
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from harness import arrays


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.randn(3, 4, 5).transpose(1, 2),  # a K-major operand: strides (20, 1, 5)
        lambda: torch.randn(4, 10)[:, :7],  # rows of a wider buffer: strides (10, 1), gaps between rows
        lambda: torch.randn(1, 6).expand(5, 6),  # a broadcast row: stride 0
        lambda: torch.randn(6, 8, dtype=torch.bfloat16).t(),  # a dtype saved as raw bits
        lambda: torch.arange(12).reshape(3, 4),  # contiguous stays contiguous
    ],
)
def test_a_saved_tensor_loads_with_its_values_and_strides(make, tmp_path: Path) -> None:
    t = make()
    entry = arrays.save_tensor(t, tmp_path, "x")
    back = arrays.load_tensor(tmp_path, entry, "cpu")
    assert back.stride() == t.stride() and back.shape == t.shape and back.dtype == t.dtype
    assert torch.equal(back, t)


def test_strides_that_cannot_be_rebuilt_leave_the_values_contiguous(tmp_path: Path) -> None:
    t = torch.randn(3, 4)
    entry = {**arrays.save_tensor(t, tmp_path, "x"), "strides": [1, 1, 1]}  # a record that does not fit the shape
    back = arrays.load_tensor(tmp_path, entry, "cpu")
    assert torch.equal(back, t) and back.is_contiguous()
