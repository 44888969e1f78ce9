"""Message families that do not decide alone: their candidates rank the owners, kdiag abstains with the
check that decides, and a rule that reads more evidence still decides."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from diagnose.catalogue import CatalogueError, default_catalogue, load_catalogue
from diagnose.catalogue_candidates import CANDIDATE_MAX
from diagnose.collectors import collect
from diagnose.coverage import family_coverage
from diagnose.inputs import InputRecord
from diagnose.matcher import MIN_CONFIDENCE, Matcher
from diagnose.report import Report, next_check
from diagnose.rules import default_rules


def _classify(text: str) -> Report:
    from diagnose.classify import classify_record

    return classify_record(InputRecord(id="t", text=text), Matcher(default_rules()))


def test_bad_candidates_are_refused_with_the_family_line(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "tool: demo\n"
        "families:\n"
        "  - id: decided-with-candidates\n"
        "    title: t\n"
        "    category: kernel-logic\n"
        "    failure_mode: x\n"
        "    candidates: [{category: environment, failure_mode: y}]\n"
        "    messages: [{text: m, source: s}]\n"
        "    patterns: ['m']\n"
        "    explain: {what: a, why: b, fix: c}\n"
        "  - id: too-sure\n"
        "    title: t\n"
        "    decide: concepts\n"
        "    candidates: [{category: environment, failure_mode: y, confidence: 0.7}]\n"
        "    messages: [{text: m, source: s}]\n"
        "    patterns: ['m']\n"
        "    explain: {what: a, why: b, fix: c, caveats: d}\n"
        "  - id: no-deciding-check\n"
        "    title: t\n"
        "    decide: concepts\n"
        "    candidates: [{category: environment, failure_mode: y}, {category: environment, failure_mode: z}]\n"
        "    messages: [{text: m, source: s}]\n"
        "    patterns: ['m']\n"
        "    explain: {what: a, why: b, fix: c}\n"
    )
    with pytest.raises(CatalogueError) as err:
        load_catalogue(tmp_path)
    text = str(err.value)
    assert "c.yaml:3: family 'decided-with-candidates': candidates are for families that do not decide alone" in text
    assert "c.yaml:11: family 'too-sure': candidate confidence must be in (0, 0.45]" in text
    assert "c.yaml:18: family 'no-deciding-check': a family with candidates needs explain.caveats" in text
    assert "c.yaml:18: family 'no-deciding-check': candidate category 'environment' is listed twice" in text


def test_a_message_that_does_not_decide_gives_its_candidates_in_order_and_the_deciding_check() -> None:
    fam = default_catalogue().get("cublas-execution-failed")
    assert fam is not None and not fam.decided and len(fam.candidates) >= 2
    report = _classify("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(handle)`")
    assert report.status == "unknown" and report.diagnosis is not None and report.diagnosis.abstained
    got = [(f.category, f.failure_mode) for f in report.diagnosis.findings]
    # the family's candidates (torch's "when calling" family adds its own: one per category and mode)
    assert {(c.category, c.failure_mode) for c in fam.candidates} <= set(got)
    # ranked by the confidence each candidate loads with (authored, then calibrated on the corpus' reports)
    rules = default_rules()
    loaded = [rules.get(f.rule).confidence for f in report.diagnosis.findings]  # type: ignore[union-attr]
    assert loaded == sorted(loaded, reverse=True)
    check = next_check(report)
    assert check is not None and check.startswith(fam.explain["caveats"])
    # the finding cites the line the family matched
    assert report.to_dict()["evidence"][0]["line"] == 1


def test_evidence_that_decides_outranks_the_candidates() -> None:
    log = (
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(handle)`\n"
    )
    report = _classify(log)
    assert report.status == "diagnosed" and report.category == "environment"
    assert report.diagnosis is not None and not (report.diagnosis.rule or "").startswith("cublas-execution-failed")


def test_a_candidate_never_decides_whatever_the_calibration_says(monkeypatch: pytest.MonkeyPatch) -> None:
    from diagnose import calibration
    from diagnose.rules import _calibrated

    rules = [r for r in default_rules() if "candidate" in r.tags]
    assert rules
    lucky = {r.id: calibration.Tally(cases=20, right=20) for r in rules}
    monkeypatch.setattr(calibration, "load", lambda path=None: (lucky, 1.0))
    authored = [dataclasses.replace(r, confidence=r.authored_confidence or r.confidence) for r in rules]
    assert all(r.confidence <= CANDIDATE_MAX < MIN_CONFIDENCE for r in _calibrated(authored))
    # the cap is the candidates' own: a rule that is no candidate keeps what it measured
    plain = next(r for r in default_rules() if "candidate" not in r.tags)
    lucky[plain.id] = calibration.Tally(cases=20, right=20)
    assert _calibrated([plain])[0].confidence > CANDIDATE_MAX


def test_coverage_counts_an_abstention_only_with_candidates_and_a_deciding_check() -> None:
    rows = {r.family: r for r in family_coverage(default_catalogue(), default_rules())}
    cublas = rows["cublas-execution-failed"]
    assert not cublas.covered and cublas.abstains and cublas.next_check
    assert (
        cublas.verdict.startswith("abstains (")
        and "kernel-logic/" in cublas.verdict
        and "environment/" in cublas.verdict
    )
    # a wrapper of any status names no candidate: unknown, and not counted as a good abstention
    wrapper = rows["xla-execution-failed"]
    assert not wrapper.covered and not wrapper.abstains and wrapper.verdict == "unknown"
    # the message of a decided concept family is covered, not an abstention
    cc = rows["xla-device-below-required-cc"]
    assert cc.covered and not cc.abstains and cc.verdict == "runtime-assumption/arch-feature-unavailable"


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        (
            "ValueError: Mosaic GPU kernel exceeds available shared memory: smem_bytes=147456 > max_smem_bytes=101376",
            "concept-smem-over-device",
            "runtime-assumption",
        ),
        (
            "ValueError: Mosaic GPU kernel exceeds available shared memory smem_bytes=262144 > 228000",
            "concept-resource-over-every-gpu",
            "kernel-logic",
        ),
        (
            "jax.errors.JaxRuntimeError: INTERNAL: StreamExecutor cuda device (0) requires compute capability "
            "'9.0' but is of '8.6'",
            "concept-cc-below-requirement",
            "runtime-assumption",
        ),
    ],
)
def test_the_numbers_of_a_family_decide(text: str, rule: str, category: str) -> None:
    d = Matcher(default_rules()).diagnose(collect(text))
    assert (d.rule, d.category) == (rule, category)


def test_equal_numbers_do_not_decide() -> None:
    """The same family with the device at the requirement: no verdict of a capability too low."""
    d = Matcher(default_rules()).diagnose(
        collect("StreamExecutor cuda device (0) requires compute capability '9.0' but is of '9.0'")
    )
    assert d.rule != "concept-cc-below-requirement"


@pytest.mark.parametrize(
    ("text", "expected", "found"),
    [
        ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 5x6)", "3", "5"),
        (
            "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
            "3",
            "4",
        ),
        ("TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).", "3", "4"),
        ("ValueError: Incompatible shapes for broadcasting: shapes=[(2, 3), (2, 4)]", "2x3", "2x4"),
    ],
)
def test_a_shape_mismatch_is_read_from_any_wording_and_decides(text: str, expected: str, found: str) -> None:
    ev = collect(text)
    assert ev.concept is not None
    assert (ev.concept.expected_shape, ev.concept.found_shape, ev.concept.shape_mismatch) == (expected, found, True)
    d = Matcher(default_rules()).diagnose(ev)
    assert (d.rule, d.category, d.failure_mode) == (
        "concept-shape-mismatch-at-op",
        "runtime-assumption",
        "shape-mismatch",
    )
    assert d.best is not None and expected in d.best.what and found in d.best.what


def test_a_shape_mismatch_inside_a_kernelbench_sample_is_the_samples() -> None:
    text = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (128x4096 and 1024x4096)\ncompiled: True\ncorrectness: False\n"
    d = Matcher(default_rules()).diagnose(collect(text))
    assert (d.category, d.failure_mode) == ("kernel-logic", "shape-mismatch-in-kernel")
    # the message without the shapes: nothing to compare, the family only names its candidate
    d = Matcher(default_rules()).diagnose(collect("RuntimeError: mat1 and mat2 shapes cannot be multiplied\n"))
    assert d.category == "unknown" and d.findings


def test_what_jax_refused_as_a_value_decides_only_when_the_function_made_it() -> None:
    m = Matcher(default_rules())
    returned = m.diagnose(
        collect(
            "TypeError: function <lambda> at <stdin>:4 traced for jit returned a value of type <class 'str'> "
            "at output component [1], which is not a valid JAX type"
        )
    )
    assert (returned.category, returned.failure_mode) == ("kernel-logic", "language-misuse")
    passed = m.diagnose(
        collect(
            "TypeError: Error interpreting argument to <function f at 0x7ff474a15620> as an abstract array. The "
            "problematic value is of type <class 'str'> and was passed to the function at path x."
        )
    )
    assert passed.category == "unknown" and {f.category for f in passed.findings} == {
        "runtime-assumption",
        "kernel-logic",
    }
