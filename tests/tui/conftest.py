"""Cases for the TUI tests, from real inputs: the public corpus classified here, and `kdiag run` fixtures."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tui.model import Case, classify_paths, read_results, read_run_dir

ROOT = Path(__file__).resolve().parents[2]
REAL_DEV = ROOT / "corpus" / "public" / "real-dev.yaml"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SIZE = (140, 40)  # every Pilot and snapshot test runs at this terminal size


@pytest.fixture(scope="session")
def rules():
    from diagnose.rules import default_rules

    return default_rules()


@pytest.fixture(scope="session")
def real_dev(rules) -> tuple[Case, ...]:
    """The 32 cases of corpus/public/real-dev.yaml, classified with the bundled rules.

    Their origins are made relative to the repository, so the snapshots hold no machine's path.
    """
    cases = classify_paths([str(REAL_DEV)], rules=rules).cases
    return tuple(replace(c, origin=(c.origin or "").replace(f"{ROOT}/", "")) for c in cases)


@pytest.fixture(scope="session")
def real_dev_results() -> tuple[Case, ...]:
    """The same cases as `kdiag classify` results written earlier (fixtures/make_fixtures.py): the
    snapshots use these, so a rule that changes a verdict does not change how the screens look."""
    return read_results(FIXTURES / "real-dev.results.jsonl").cases


@pytest.fixture(scope="session")
def run_case() -> Case:
    """`kdiag run corpus/kernels/missing_mask_tail.py --cpu` (fixtures/make_fixtures.py)."""
    return read_run_dir(FIXTURES / "run-missing-mask-tail")


@pytest.fixture(scope="session")
def numerics_case() -> Case:
    """`kdiag run corpus/kernels/fp16_accumulator.py --cpu` (fixtures/make_fixtures.py)."""
    return read_run_dir(FIXTURES / "run-fp16-accumulator")
