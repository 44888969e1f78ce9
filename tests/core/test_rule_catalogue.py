"""docs/RULE-CATALOGUE.md is the output of `kdiag rules list --format markdown` over the bundled rules."""

from __future__ import annotations

import io
from pathlib import Path

from diagnose.cli import main
from diagnose.rules import load_rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "RULE-CATALOGUE.md"


def test_the_committed_catalogue_is_the_generated_one() -> None:
    out = io.StringIO()
    assert main(["rules", "list", "--format", "markdown"], out=out) == 0
    assert DOC.read_text() == out.getvalue(), (
        "docs/RULE-CATALOGUE.md is out of date: run `kdiag rules list --format markdown > docs/RULE-CATALOGUE.md`"
    )


def test_every_rule_has_its_line_under_its_folder() -> None:
    text = DOC.read_text()
    rules = load_rules()
    for r in rules:
        section = text.index(f"## rules/{Path(r.path).parent.as_posix()}/")
        line = text.index(f"- `{r.id}` — ")
        assert (
            line > section
            and f" / {r.failure_mode} — {r.priority}, {r.confidence:.2f} — " in text[line:].split("\n")[0]
        )
    assert text.rstrip().endswith(f"{len(rules)} rules.")
