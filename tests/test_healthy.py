"""Healthy output (corpus/healthy/): nothing failed, so no rule may fire and the status is no-failure.

And the converse: no labelled failure in the corpus may be called no-failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.classify import classify_records
from diagnose.evaluate import HEALTHY
from diagnose.inputs import read_inputs

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
FAILURE_SETS = ["public/real-dev.yaml", "holdout/issues.yaml", "holdout2/issues.yaml", "captured/cases.yaml"]


@pytest.fixture(scope="module")
def healthy_reports():
    # as `kdiag classify` answers by default: the text prior too (it is asked only about a failure)
    return list(classify_records(read_inputs([str(CORPUS / "healthy")]), text_prior=True))


def test_the_healthy_corpus_is_large_and_labelled(healthy_reports) -> None:
    assert len(healthy_reports) >= 200
    assert all(r.label.get("category") == HEALTHY for r in healthy_reports)
    assert len({r.id for r in healthy_reports}) == len(healthy_reports)


def test_no_rule_fires_and_every_healthy_case_is_no_failure(healthy_reports) -> None:
    offenders = [
        f"{r.id}: status {r.status}, "
        + (
            ", ".join(f"{f.rule} ({f.category}/{f.failure_mode})" for f in r.diagnosis.findings)
            if r.diagnosis and r.diagnosis.findings
            else "no finding"
        )
        for r in healthy_reports
        if r.status != "no-failure" or (r.diagnosis is not None and r.diagnosis.findings)
    ]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("name", FAILURE_SETS)
def test_no_labelled_failure_is_called_no_failure(name: str) -> None:
    reports = list(classify_records(read_inputs([str(CORPUS / name)])))
    failures = [r for r in reports if r.label.get("category") not in (None, HEALTHY)]
    assert len(failures) >= 30
    called_healthy = [r.id for r in failures if r.status == "no-failure"]
    assert not called_healthy, called_healthy
    # the healthy runs kept beside the failures are no-failure too
    healthy = [r.id for r in reports if r.label.get("category") == HEALTHY and r.status != "no-failure"]
    assert not healthy, healthy
