"""Helpers of the tests that read real logs of the labelled corpus (imported by them, as
tests/probes/probe_fixtures.py is by the probe tests): a case's log by its id, and kdiag's answer on a text."""

from __future__ import annotations

from pathlib import Path

from diagnose.classify import classify_record
from diagnose.inputs import InputRecord, load_yaml
from diagnose.matcher import Finding, Matcher
from diagnose.report import Report
from diagnose.rules import default_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
MATCHER = Matcher(default_rules())


def public_and_fixture_logs(edges: list[str]) -> list[str]:
    """``edges``, then every log of corpus/public and of the tests' recorded fixtures (``*.log``): the texts a
    search's fast path is checked against the plain search on."""
    logs = list(edges)
    for path in sorted((CORPUS / "public").glob("*.yaml")):
        logs += [str(c["log"]) for c in load_yaml(path.read_text()) or [] if isinstance(c, dict) and c.get("log")]
    logs += [p.read_text(errors="replace") for p in sorted((CORPUS.parent / "tests" / "fixtures").rglob("*.log"))]
    return logs


def corpus_log(where: str, case_id: str) -> str:
    """The log of case ``case_id`` in ``corpus/WHERE`` (a set's folder, ``holdout8``, or its file,
    ``holdout8/issues.yaml``)."""
    path = CORPUS / where
    if path.is_dir():
        path = path / "issues.yaml"
    for c in load_yaml(path.read_text()):
        if c["id"] == case_id:
            return str(c["log"])
    raise KeyError(case_id)


def classify_text(text: str) -> Report:
    return classify_record(InputRecord(id="t", text=text), MATCHER)


def finding_of(text: str, rule: str) -> Finding:
    """The finding of ``rule`` on ``text``, whether it answers or stands as a candidate under the threshold."""
    report = classify_text(text)
    assert report.diagnosis is not None
    return next(f for f in report.diagnosis.findings if f.rule == rule)


def finding_rules(text: str) -> list[str]:
    """The rules of every finding kdiag has on ``text``: the answer's and the candidates' (empty when none)."""
    report = classify_text(text)
    return [f.rule for f in report.diagnosis.findings] if report.diagnosis is not None else []


def decided(text: str) -> tuple[str | None, str | None, str | None]:
    """(category, failure mode, rule) of kdiag's answer on ``text``."""
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None
    return report.category, d.failure_mode, d.rule


def verdict(text: str) -> tuple[str, str | None, str | None]:
    """(status, category, rule) of kdiag's answer on ``text`` (category and rule None when it has none)."""
    report = classify_text(text)
    d = report.diagnosis
    if d is None:
        return report.status, None, None
    return report.status, d.category, d.rule


def assert_family_answers(text: str, category: str, rule: str) -> None:
    """kdiag answers ``text`` with ``category`` by a rule whose id starts with ``rule`` (a family's rule)."""
    status, got_category, got_rule = verdict(text)
    assert (status, got_category) == ("diagnosed", category), (status, got_category, got_rule)
    assert got_rule is not None and got_rule.startswith(rule), got_rule


def assert_family_abstains(text: str, family: str) -> None:
    """kdiag abstains on ``text`` with ``family`` among its findings and at least two owners among them."""
    report = classify_text(text)
    assert report.status == "unknown", (report.status, report.diagnosis and report.diagnosis.rule)
    assert report.diagnosis is not None
    assert any(f.rule.startswith(family) for f in report.diagnosis.findings), report.diagnosis.findings
    assert len({f.category for f in report.diagnosis.findings}) >= 2


def regenerated_table(script: str, table: str, out_dir: Path) -> tuple[dict, dict]:
    """(the table checked in at diagnose/data/``table``, the one ``scripts/<script>`` writes now from this machine's
    CUDA toolkit); a test marked ``toolkit`` compares them."""
    import json
    import subprocess
    import sys

    out = out_dir / table
    cmd = [sys.executable, str(CORPUS.parent / "scripts" / script), "--cuda", "/usr/local/cuda", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    return json.loads((CORPUS.parent / "diagnose" / "data" / table).read_text()), json.loads(out.read_text())


def spread(items: list, most: int) -> list:
    """At most ``most`` of ``items``, taken evenly over the whole list in its order (every item when there are fewer):
    a check over a sample of the corpus whose cost stays fixed as the corpus grows.

    >>> spread(list(range(10)), 4), spread([1, 2], 5)
    ([0, 2, 5, 7], [1, 2])
    """
    if len(items) <= most:
        return list(items)
    step = len(items) / most
    return [items[int(i * step)] for i in range(most)]
