"""A label that names two sides and their difference prints a measured difference, not one side's value: OpenMM's
testInstallation ("Median difference in forces between platforms:" then "Reference vs. CUDA: 2.1868e-05") ran and
succeeded (a blind set of real healthy outputs, corpus/healthy/public7.yaml)."""

from __future__ import annotations

from diagnose.comparisons import comparison_lines

OPENMM = """Median difference in forces between platforms:

Reference vs. OpenCL: 2.18784e-05
Reference vs. CUDA: 2.1868e-05
OpenCL vs. CUDA: 5.30477e-07
"""


def test_differences_between_two_sides_are_not_a_side_each() -> None:
    assert comparison_lines(OPENMM) == []


def test_a_reference_and_a_device_value_that_differ_still_are() -> None:
    assert [n for n, _ in comparison_lines("Mismatch at 0: CPU_ref: 1.125032 vs GPU: 3.562500")] == [1]
