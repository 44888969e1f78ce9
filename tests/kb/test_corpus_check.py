"""`kdiag corpus check`: the labelled corpus as a regression suite against corpus/baseline.json.

Every case right in the committed baseline must stay right; a rule change that breaks one fails
this test (shown with a deliberately broken copy of the rule base).  Improvements show up as
changed cases: `kdiag corpus check --update-baseline` records them.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from diagnose.cli import main
from diagnose.kb import corpus_check as CC

ROOT = Path(__file__).resolve().parent.parent.parent
BASELINE = ROOT / "corpus" / CC.BASELINE_NAME


@pytest.fixture(scope="module")
def result() -> CC.Result:
    return CC.check(CC.DEFAULT_CORPUS, baseline=BASELINE)


def test_no_case_right_in_the_baseline_is_wrong_now(result: CC.Result) -> None:
    assert result.baseline is not None, "corpus/baseline.json is missing"
    _changed, regressions, new = result.changes()
    assert not regressions, regressions
    assert not new, f"cases not in the baseline (kdiag corpus check --update-baseline): {new}"


def test_the_corpus_covers_the_taxonomy(result: CC.Result) -> None:
    d = result.to_dict()
    assert d["cases"] >= 80
    assert d["modes_without_case"] == []
    # floors, not targets: the honest figure is what `kdiag corpus check` prints
    assert d["accuracy"] >= 0.65  # the held-out sets (corpus/holdout*) are in it: see their READMEs
    assert set(d) >= {"cases", "accuracy", "per_rule", "per_mode", "modes_without_case"}
    rules_right = sum(r["right"] for r in d["per_rule"].values())
    assert rules_right <= d["right"]  # right answers come from rules (healthy cases: from none firing)


def test_a_broken_rule_fails_the_suite(tmp_path: Path, result: CC.Result) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    # the rule that decides the most baseline-right cases, made to name the wrong owner
    per_rule = result.per_rule()
    victim = max(per_rule, key=lambda r: per_rule[r]["right"])
    (path,) = list(rules.rglob(f"{victim}.yaml"))
    text = path.read_text()
    cat = next(ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("category:"))
    wrong = "environment" if cat != "environment" else "kernel-logic"
    path.write_text(text.replace(f"category: {cat}", f"category: {wrong}", 1))

    out, err = io.StringIO(), io.StringIO()
    code = main(["corpus", "check", "--rules", str(rules), "--format", "json"], out=out, err=err)
    assert code == 1
    regressions = json.loads(out.getvalue())["regressions"]
    assert len(regressions) >= per_rule[victim]["right"] // 2, regressions


def test_update_baseline_writes_what_check_compares(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "public").mkdir(parents=True)
    shutil.copy(ROOT / "corpus" / "public" / "real-dev.yaml", corpus / "public")
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["corpus", "check", "--corpus", str(corpus), "--update-baseline", "--no-rule-examples"], out=out, err=err
    )
    assert code == 0, err.getvalue()
    base = json.loads((corpus / CC.BASELINE_NAME).read_text())
    assert len(base["cases"]) == 32
    assert "0 changed, 0 regression(s), 0 new case(s)" in out.getvalue()


def test_the_text_report_counts_a_held_out_sets_misses_without_listing_them(result: CC.Result) -> None:
    from diagnose.calibration import HELD_OUT

    out = io.StringIO()
    CC.write_text(result, out)
    text = out.getvalue()
    misses = text.split("\nmisses (", 1)[1].split("\nagainst the baseline", 1)[0]
    listed = [line.split()[0] for line in misses.splitlines()[1:] if line.startswith("  ") and "label" in line]
    held = [c for c in result.cases if not c.right and c.suite.startswith(HELD_OUT)]
    assert held, "the held-out sets have misses to hide"
    assert listed and not any(i.startswith(HELD_OUT) for i in listed)
    assert f"and {len(held)} in held-out sets" in misses
    # the JSON form keeps every miss, for programs
    assert len(result.to_dict()["misses"]) == len(listed) + len(held)
