"""`kdiag rules coverage`: families per tool, and every decided family covered by its own rule."""

from __future__ import annotations

import io
import json

from diagnose.catalogue import default_catalogue
from diagnose.cli import main
from diagnose.coverage import family_coverage
from diagnose.rules import default_rules


def test_every_decided_family_gets_its_own_verdict_on_its_messages() -> None:
    """A decided family's message gets the family's category (its own rule, or a rule that weighs more
    evidence and agrees on the owner); a family whose confidence is below the abstention threshold (its
    text fits several owners) is only a candidate, and is not checked here."""
    from diagnose.matcher import MIN_CONFIDENCE

    cat = default_catalogue()
    rules = default_rules()
    rows = family_coverage(cat, rules)
    decided = [r for r in rows if r.decision not in ("concepts", "warning")]
    assert decided
    wrong = []
    for r in decided:
        fam, rule = cat.get(r.family), rules.get(r.family)
        assert fam is not None and rule is not None
        if rule.confidence < MIN_CONFIDENCE:
            continue  # calibrated below the threshold: a candidate only
        got = r.verdict.removeprefix("abstains (").rstrip(")")  # abstaining on a contested text is fine
        if got.split("/")[0] != fam.category:
            wrong.append(f"{r.family}: {r.verdict} (family says {r.decision}) on {r.message!r}")
    assert not wrong, "\n".join(wrong)


def test_coverage_command_reports_per_tool() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["rules", "coverage", "--format", "json"], out=out, err=err) == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert "ptxas" in data["tools"]
    assert sum(t["families"] for t in data["tools"].values()) == len(data["families"]) == len(default_catalogue())
    table = io.StringIO()
    assert main(["rules", "coverage"], out=table, err=err) == 0
    assert table.getvalue().splitlines()[0].split() == [
        "TOOL",
        "FAMILIES",
        "DECIDED",
        "CONCEPTS",
        "WARNING",
        "COVERED",
        "ABSTAINS",
    ]
