"""A glog record's second line keeps the record's severity, a Grappler pass that failed is no failure, a traceback's
marked ``assert`` line is one, and Julia's UndefVarError is decided by the frame that raised it (corpus/holdout45/,
corpus/healthy/public11.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_record
from diagnose.failure_lines import failure_lines
from diagnose.inputs import InputRecord
from diagnose.log_records import logged_low, low_record_tail
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _case(path: str, case_id: str) -> str:
    for c in yaml.safe_load((CORPUS / path).read_text()):
        if c["id"] == case_id:
            return str(c["log"])
    raise KeyError(case_id)


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(default_rules())


def _answer(matcher: Matcher, text: str) -> tuple[str, str | None, str | None]:
    r = classify_record(InputRecord(id="x", text=text), matcher, text_prior=True)
    return r.status, r.diagnosis.category if r.diagnosis else None, r.diagnosis.rule if r.diagnosis else None


INFO_HEAD = "2023-11-25 04:06:47.733361: I tensorflow/core/x.cc:880] could not open file to read NUMA node: /sys/n"


def test_the_second_line_of_an_info_record_is_that_record() -> None:
    text = INFO_HEAD + "\nYour kernel may have been built without NUMA support.\nEpoch 1/40\n"
    assert low_record_tail(INFO_HEAD, "Your kernel may have been built without NUMA support.")
    assert logged_low(text, text.index("built without"))
    assert not logged_low(text, text.index("Epoch"))  # the line after the tail is not the record's
    # an error line of its own after an INFO record is no tail of it, nor is a line after a line without a head
    assert not low_record_tail(INFO_HEAD, "RuntimeError: CUDA error: no kernel image is available")
    assert not low_record_tail("Epoch 1/40", "Your kernel may have been built without NUMA support.")
    warn = INFO_HEAD.replace(": I ", ": W ")
    error = INFO_HEAD.replace(": I ", ": E ")
    assert low_record_tail(warn, "built without X support") and not low_record_tail(error, "built without X support")


def test_healthy_outputs_with_a_record_tail_and_a_grappler_pass_stay_silent(matcher: Matcher) -> None:
    for cid in (
        "healthy11-startup-tf-dual-rtx4090-xla-cluster-compiled",
        "healthy11-warning-tf-grappler-layout-failed-dropout",
    ):
        assert _answer(matcher, _case("healthy/public11.yaml", cid))[0] == "no-failure", cid
    # the same library statement as an error of its own is still read
    status, category, _ = _answer(matcher, "RuntimeError: XLA compiled without GPU collectives support\n")
    assert (status, category) == ("diagnosed", "environment")


def test_a_marked_assert_line_is_a_failure_and_a_compiler_caret_is_not(matcher: Matcher) -> None:
    log = _case("holdout45/issues.yaml", "h45b-sageattention-sm89-kernel-not-built")
    assert [n for n, _ in failure_lines(log)] == [1]
    assert _answer(matcher, log)[0] == "unknown"  # a failure whose owner the text does not settle
    # gcc's caret (one ^ then ~) under a warning's source line, and an assert printed without a marker
    gcc = "k.cu:3:7: warning: unused variable 'x'\n    3 |   int x = 0;\n      |       ^\n    assert(n > 0);\n"
    assert failure_lines(gcc) == []
    assert failure_lines("    assert x.is_cuda\nok\n") == []


def test_julia_undefvarerror_is_decided_by_the_frame_that_raised_it(matcher: Matcher) -> None:
    package = _case("holdout45/issues.yaml", "h45a-oceananigans-cudabackend-undefvar-cudajl-v4")
    assert _answer(matcher, package) == ("diagnosed", "environment", "concept-julia-name-missing-from-package")
    # the user's own name at the REPL: the family abstains and lists its owners
    own = "ERROR: UndefVarError: `foo` not defined\nStacktrace:\n [1] top-level scope\n   @ REPL[3]:1\n"
    r = classify_record(InputRecord(id="x", text=own), matcher, text_prior=True)
    assert r.status == "unknown"
    assert r.diagnosis is not None and "Julia code names" in r.diagnosis.title, r.diagnosis
