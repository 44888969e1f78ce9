"""Cases from every source the TUI opens, filtering and sorting, and text made safe to draw."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import diagnose
from tui.model import from_report, from_result, load
from tui.query import Index, counts, parse_query, unknown_groups
from tui.text import visible

ROOT = Path(__file__).resolve().parents[2]
REAL_DEV = ROOT / "corpus" / "public" / "real-dev.yaml"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_a_results_line_becomes_the_same_case_as_the_report(real_dev, rules):
    for case in real_dev:
        again = from_result(json.loads(json.dumps(case.report.to_dict())))
        assert (again.id, again.category, again.failure_mode, again.rule, again.confidence) == (
            case.id, case.category, case.failure_mode, case.rule, case.confidence,
        )  # fmt: skip
        # a results line keeps the cited lines, of a verdict and of an abstention's best guess alike
        assert again.cited == case.cited
        assert [f["rule"] for f in again.runners_up] == [f["rule"] for f in case.runners_up]


def test_load_tells_results_from_records(tmp_path, real_dev):
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(c.report.to_dict()) + "\n" for c in real_dev))
    batch = load([str(results)])
    assert [c.id for c in batch.cases] == [c.id for c in real_dev]
    assert all(c.log is None for c in batch.cases)  # a results file does not keep the log
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"id": "a", "log": "RuntimeError: CUDA error: out of memory"}) + "\n")
    (case,) = load([str(records)]).cases
    assert case.log and case.report is not None


def test_a_run_directory_is_one_case_with_its_ladder(run_case):
    assert run_case.category == "kernel-logic"
    assert run_case.failure_mode == "missing-mask-tail"
    assert run_case.run and run_case.run["rungs"][0]["name"] == "plain"
    assert run_case.evidence and "run" in run_case.evidence
    assert load([str(FIXTURES / "run-missing-mask-tail")]).cases[0].id == run_case.id


def test_filter_by_category_mode_rule_and_text(real_dev):
    idx = Index(real_dev)
    env = idx.filter(parse_query("cat:env"))
    assert env and all(real_dev[i].category == "environment" for i in env)
    assert len(env) == Counter(c.category for c in real_dev)["environment"]
    ptx = idx.filter(parse_query("rule:ptxas-unknown"))
    assert {real_dev[i].id for i in ptx} == {c.id for c in real_dev if c.rule == "ptxas-unknown-arch"}
    words = idx.filter(parse_query("LightLLM sm89"))
    assert [real_dev[i].id for i in words] == ["lightllm-triton20-sm89"]
    assert idx.filter(parse_query("mode:no-such-mode")) == []


def test_sort_by_each_column(real_dev):
    idx = Index(real_dev)
    rows = idx.filter(parse_query(""))
    by_conf = [real_dev[i].confidence for i in idx.sort(rows, "confidence", reverse=True)]
    assert by_conf == sorted(by_conf, reverse=True)
    by_id = [real_dev[i].id for i in idx.sort(rows, "id")]
    assert by_id == sorted(by_id)


def test_counts_keep_the_unknowns_and_their_groups(real_dev):
    c = counts(real_dev)
    assert sum(c.values()) == len(real_dev)
    groups = unknown_groups(real_dev)
    assert sum(groups.values()) == c["unknown"] > 0


def test_log_text_is_never_markup_or_escape_codes():
    assert visible("[bold]x[/]") == "[bold]x[/]"
    assert "\x1b" not in visible("\x1b[31mred\x1b[0m")
    assert visible("\x1b[31m") == "␛[31m"


def test_a_log_with_markup_and_escapes_still_classifies_into_a_case():
    log = "\x1b[31mRuntimeError: CUDA error: out of memory\x1b[0m [bold]Tried to allocate[/]\n"
    case = from_report(diagnose.classify_log(log, id="ansi"))
    # the terminal's colours are taken off as the collectors read it (diagnose/collectors/decorations.py); the
    # rest, Rich markup included, is the log's own text
    assert case.log == "RuntimeError: CUDA error: out of memory [bold]Tried to allocate[/]\n"
