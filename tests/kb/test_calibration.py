"""Calibrated confidence: the committed calibration file is what the corpus gives, and it calibrates.

The file (diagnose/data/calibration.json, `kdiag corpus check --calibrate`) keeps per rule the labelled
cases it decided and how many it got right, measured with the authored confidences; a rule loads with
``(right + k * authored) / (cases + k)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnose import calibration as C
from diagnose.catalogue_candidates import CANDIDATE_MAX
from diagnose.kb import corpus_check as CC
from diagnose.rules import load_rules


@pytest.fixture(scope="module")
def authored() -> CC.Result:
    return CC.check(CC.DEFAULT_CORPUS, rule_examples=False, calibrate=False)


@pytest.fixture(scope="module")
def calibrated() -> CC.Result:
    return CC.check(CC.DEFAULT_CORPUS, rule_examples=False)


def test_the_committed_calibration_is_a_fresh_computation(authored: CC.Result) -> None:
    committed = json.loads(C.CALIBRATION_FILE.read_text(encoding="utf-8"))
    fresh = C.tallies(authored.decisions())
    got = {rid: (t["cases"], t["right"]) for rid, t in committed["rules"].items()}
    want = {rid: (t.cases, t.right) for rid, t in fresh.items()}
    assert got == want, "the corpus or the rules changed: kdiag corpus check --calibrate"
    assert committed["k"] == C.K


def test_held_out_cases_and_rule_examples_are_not_learned_from(authored: CC.Result) -> None:
    suites = {c.suite for c in authored.cases}
    assert any(s.startswith(C.HELD_OUT) for s in suites)
    learned = [c for c in authored.cases if c.top_rule is not None and C.calibration_suite(c.suite)]
    assert len(authored.decisions()) == len(learned) > 100
    assert not any(
        c.suite.startswith(("holdout4/", "holdout9/", "captured/")) or c.suite == "rule-examples" for c in learned
    )
    assert not C.calibration_suite("holdout4/issues.yaml")
    assert not C.calibration_suite("holdout9/issues.yaml")
    assert C.calibration_suite("holdout6/issues.yaml")
    assert not C.calibration_suite("rule-examples")
    assert not C.calibration_suite("captured/cases.yaml") and not C.calibration_suite("kernels/recorded.yaml")
    assert C.calibration_suite("holdout3/issues.yaml")


def test_rules_load_with_the_calibrated_confidence() -> None:
    tallies, k = C.load()
    plain = {r.id: r for r in load_rules(calibrate=False)}
    for rule in load_rules():
        assert rule.authored_confidence == plain[rule.id].confidence
        want = C.calibrated(plain[rule.id].confidence, tallies.get(rule.id), k)
        if "candidate" in rule.tags:  # a family's candidate never decides, whatever its cases say
            want = min(want, CANDIDATE_MAX)
        assert rule.confidence == pytest.approx(want)
    # a rule decided often and always right ends near 1; one mostly wrong ends below its author's value
    often_right = [r for r, t in tallies.items() if t.cases >= 5 and t.right == t.cases and r in plain]
    assert often_right
    loaded = {r.id: r for r in load_rules()}
    for rid in often_right:
        assert loaded[rid].confidence > plain[rid].confidence


def test_the_corpus_is_calibrated(calibrated: CC.Result) -> None:
    cal = calibrated.calibration()["calibration_set"]
    assert cal["answers"] >= 150
    assert cal["ece"] < 0.08, cal
    assert sum(b["answers"] for b in cal["bins"]) == cal["answers"]
    # the most confident answers are at least as often right as the least confident ones
    filled = [b for b in cal["bins"] if b["answers"] >= 5]
    assert filled[-1]["right"] >= filled[0]["right"]


def test_every_real_report_is_calibrated_and_made_here_cases_kept_apart(calibrated: CC.Result) -> None:
    cal = calibrated.calibration()
    real, made, every = cal["real_reports"], cal["made_here"], cal["all"]
    assert real["answers"] == cal["calibration_set"]["answers"] + cal["held_out"]["answers"]
    assert real["answers"] + made["answers"] == every["answers"]
    assert real["ece"] < 0.08, real


def test_reliability_bins_and_ece() -> None:
    r = C.reliability([(0.95, True), (0.95, False), (0.45, False), (0.65, True)])
    bins = {b["bin"]: b for b in r["bins"]}
    assert bins[">=0.9"]["answers"] == 2 and bins[">=0.9"]["right"] == 0.5
    assert bins["<0.5"]["right"] == 0.0 and bins["0.6-0.7"]["right"] == 1.0
    assert r["ece"] == pytest.approx((2 * 0.45 + 0.45 + 0.35) / 4, abs=1e-4)
    assert C.reliability([])["ece"] is None


def test_a_broken_calibration_file_leaves_the_authored_confidences(tmp_path: Path) -> None:
    bad = tmp_path / "calibration.json"
    bad.write_text("{not json")
    assert C.load(bad) == ({}, C.K)
    bad.write_text(json.dumps({"k": -1, "rules": {"x": {"cases": 2, "right": 5}, "y": {"cases": 4, "right": 4}}}))
    tallies, k = C.load(bad)
    assert k == C.K and set(tallies) == {"y"}
    assert C.calibrated(0.5, None) == 0.5
    assert C.calibrated(0.5, C.Tally(cases=4, right=4), k=2.0) == pytest.approx(5 / 6, abs=1e-3)
