"""The report's "outside the contract too" line says something only when the probes fail otherwise than the
declared sizes do: a kernel that already reads out of bounds at a size it declares, and reads out of bounds on the
probes' inputs too, has no second owner (an expert review of a blind set of kernels read the line as one)."""

from __future__ import annotations

from types import SimpleNamespace

from diagnose.run.output import _probes_add_to


def _res(*, oob: bool, declared_ok: bool, probes: list[str]) -> SimpleNamespace:
    run = SimpleNamespace(oob_loads=2 if oob else 0, oob_stores=0)
    size = SimpleNamespace(ok=declared_ok, kernel_error=None, missing=False)
    failures = [SimpleNamespace(verdict=v) for v in probes]
    return SimpleNamespace(evidence=SimpleNamespace(run=run), sizes=(size,), probes=SimpleNamespace(failures=failures))


def test_probes_that_fail_as_the_declared_sizes_do_add_nothing() -> None:
    assert not _probes_add_to(_res(oob=True, declared_ok=True, probes=["oob", "oob"]))
    assert not _probes_add_to(_res(oob=False, declared_ok=False, probes=["mismatch"]))


def test_a_probe_that_fails_otherwise_is_said() -> None:
    # wrong values at a declared size, and an out-of-bounds access only on a probe's input
    assert _probes_add_to(_res(oob=False, declared_ok=False, probes=["mismatch", "oob"]))
