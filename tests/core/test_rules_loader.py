"""The rule loader rejects every kind of broken rule with file, line and reason, all at once."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from diagnose.cli import main
from diagnose.rules import RuleLoadError, load_rules

GOOD = """\
id: {id}
title: A good rule
category: kernel-logic
failure_mode: oob-global-access
status: stable
confidence: 0.5
priority: 10
requires: [cuda]
when: {when}
explain:
  what: "A kernel read memory it does not own. The runtime reported {{cuda_error}}."
  why: why it happens
  fix: how to fix it
references:
  - https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html
examples:
  match:
    - log: "RuntimeError: CUDA error: an illegal memory access was encountered"
  no_match:
    - log: "RuntimeError: CUDA error: out of memory"
"""


def write(root: Path, name: str, text: str) -> Path:
    path = root / f"{name}.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_good_rule_loads(tmp_path: Path) -> None:
    write(tmp_path, "good-rule", GOOD.format(id="good-rule", when='cuda_error == "cudaErrorIllegalAddress"'))
    rules = load_rules(tmp_path)
    assert [r.id for r in rules] == ["good-rule"]
    (rule,) = rules
    assert rule.symbols == ("cuda_error",)
    assert rule.specificity == 2


def test_every_offender_is_listed_with_file_line_and_reason(tmp_path: Path) -> None:
    write(tmp_path, "typo-symbol", GOOD.format(id="typo-symbol", when='cuda_eror == "x"'))
    write(tmp_path, "bad-regex", GOOD.format(id="bad-regex", when='log_text =~~ "(unclosed"'))
    write(tmp_path, "type-error", GOOD.format(id="type-error", when="cuda_error > 3"))
    missing = GOOD.format(id="missing-field", when='cuda_error == "x"').replace("priority: 10\n", "")
    write(tmp_path, "missing-field", missing)
    write(tmp_path, "wrong-stem", GOOD.format(id="other-name", when='cuda_error == "x"'))
    write(tmp_path, "bad-yaml", "id: bad-yaml\ntitle: [unclosed\n")
    with pytest.raises(RuleLoadError) as info:
        load_rules(tmp_path)
    text = str(info.value)
    problems = {p.path: p for p in info.value.problems}
    assert set(problems) == {
        "typo-symbol.yaml",
        "bad-regex.yaml",
        "type-error.yaml",
        "missing-field.yaml",
        "wrong-stem.yaml",
        "bad-yaml.yaml",
    }
    # the `when` line is line 9 of the template
    assert problems["typo-symbol.yaml"].line == 9
    assert "unknown evidence symbol 'cuda_eror'" in text and "did you mean cuda_error" in text
    assert problems["bad-regex.yaml"].line == 9 and "regular expression" in problems["bad-regex.yaml"].message
    assert "type error" in problems["type-error.yaml"].message
    assert "missing required field 'priority'" in problems["missing-field.yaml"].message
    assert "must equal the file's stem" in problems["wrong-stem.yaml"].message
    assert "invalid YAML" in problems["bad-yaml.yaml"].message


def test_unknown_fields_and_bad_values(tmp_path: Path) -> None:
    text = GOOD.format(id="odd", when='cuda_error == "x"')
    text = text.replace("category: kernel-logic", "category: kernel_logic").replace("confidence: 0.5", "confidence: 5")
    text = text.replace("requires: [cuda]", "requires: [cudaa]") + "explian: oops\n"
    write(tmp_path, "odd", text)
    with pytest.raises(RuleLoadError) as info:
        load_rules(tmp_path)
    messages = [p.message for p in info.value.problems]
    assert any("category must be one of" in m for m in messages)
    assert any("confidence must be a number between 0 and 1" in m for m in messages)
    assert any("unknown evidence source 'cudaa'" in m for m in messages)
    assert any("unknown field 'explian'" in m and "did you mean 'explain'" in m for m in messages)


def test_duplicate_ids_across_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write(tmp_path / "a", "same", GOOD.format(id="same", when='cuda_error == "x"'))
    write(tmp_path / "b", "same", GOOD.format(id="same", when='cuda_error == "x"'))
    with pytest.raises(RuleLoadError, match="duplicate rule id 'same'"):
        load_rules(tmp_path)


def test_lint_command_lists_all_offenders_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "typo-symbol", GOOD.format(id="typo-symbol", when='cuda_eror == "x"'))
    write(tmp_path, "bad-regex", GOOD.format(id="bad-regex", when='log_text =~~ "(unclosed"'))
    assert main(["rules", "lint", "--rules", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "typo-symbol.yaml:9:" in out and "bad-regex.yaml:9:" in out
    # any command that loads the rules fails too, and says why
    assert main(["classify", "--rules", str(tmp_path), "-"]) == 3


def test_lint_checks_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the rule says out-of-memory is an illegal address: its match example cannot match
    write(tmp_path, "wrong-example", GOOD.format(id="wrong-example", when='cuda_error == "cudaErrorMemoryAllocation"'))
    assert main(["rules", "lint", "--rules", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "wrong-example.yaml:18: match example does not match" in out
    assert "wrong-example.yaml:20: no_match example matches" in out


def test_lint_catches_rules_that_break_on_empty_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # oom_total_bytes is null when the OOM message has no figures: comparing null > number raises
    text = GOOD.format(id="null-unsafe", when="oom_total_bytes > 1").replace("requires: [cuda]", "requires: [oom]")
    write(tmp_path, "null-unsafe", text)
    assert main(["rules", "lint", "--rules", str(tmp_path)]) == 1
    assert "rule raises on evidence whose fields are empty" in capsys.readouterr().out


def test_lint_flags_two_owners_of_one_diagnosis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the same illegal address read twice (by name and by message), same category, mode and priority
    write(tmp_path, "by-name", GOOD.format(id="by-name", when='cuda_error == "cudaErrorIllegalAddress"'))
    by_message = GOOD.format(id="by-message", when='cuda_message =~~ "illegal memory access"')
    write(tmp_path, "by-message", by_message)
    assert main(["rules", "lint", "--rules", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "by-name.yaml:18: by-message (by-message.yaml) also fires on this example" in out
    assert "by-message.yaml:18: by-name (by-name.yaml) also fires on this example" in out
    # one more specific than the other (a higher priority): the ranking decides, nothing to merge
    write(tmp_path, "by-message", by_message.replace("priority: 10", "priority: 12"))
    assert main(["rules", "lint", "--rules", str(tmp_path)]) == 0
    # another failure mode: two diagnoses, not one fact twice
    write(tmp_path, "by-message", by_message.replace("oob-global-access", "illegal-address-other"))
    assert main(["rules", "lint", "--rules", str(tmp_path)]) == 0


def test_speaks_about_defaults_to_the_contract_and_is_checked(tmp_path: Path) -> None:
    write(tmp_path, "plain-rule", GOOD.format(id="plain-rule", when='cuda_error == "cudaErrorIllegalAddress"'))
    assert [r.speaks_about for r in load_rules(tmp_path)] == ["contract"]
    probe = GOOD.format(id="probe-rule", when='cuda_error == "x"').replace("status:", "speaks_about: probe\nstatus:")
    write(tmp_path, "probe-rule", probe.replace("category: kernel-logic", "category: runtime-assumption"))
    assert {r.id: r.speaks_about for r in load_rules(tmp_path)}["probe-rule"] == "probe"
    write(tmp_path, "bad-about", GOOD.format(id="bad-about", when='cuda_error == "x"').replace(
        "status:", "speaks_about: probes\nstatus:"))  # fmt: skip
    write(tmp_path, "probe-logic", probe.replace("id: probe-rule", "id: probe-logic"))
    with pytest.raises(RuleLoadError) as info:
        load_rules(tmp_path)
    messages = sorted(f"{p.path}: {p.message}" for p in info.value.problems)
    assert len(messages) == 2, messages
    assert "bad-about.yaml: speaks_about must be one of contract, probe; got 'probes'" in messages[0]
    assert "probe-logic.yaml: speaks_about: probe goes with category runtime-assumption" in messages[1]
