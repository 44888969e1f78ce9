"""A finding's texts and cited lines are made when first read (diagnose.matcher._Deferred): the diagnosis,
every finding's texts and lines, and what pickles or compares are those of findings made at once."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

import diagnose
from diagnose import matcher as M
from diagnose.collectors import collect
from diagnose.inputs import load_yaml
from diagnose.rules import default_rules

ROOT = Path(diagnose.__file__).resolve().parent.parent


def _texts() -> list[str]:
    texts = [p.read_text() for p in sorted((ROOT / "examples" / "logs").glob("*.log"))]
    for path in [*sorted((ROOT / "corpus" / "public").glob("*.yaml")), ROOT / "corpus" / "holdout2" / "issues.yaml"]:
        data = load_yaml(path.read_text())
        texts += [str(c.get("log") or "") for c in (data if isinstance(data, list) else []) if isinstance(c, dict)]
    return [t for t in texts if t]


@pytest.fixture(scope="module")
def matcher() -> M.Matcher:
    return M.Matcher(default_rules())


def _eager(monkeypatch: pytest.MonkeyPatch) -> None:
    made = M._finding
    monkeypatch.setattr(M, "_finding", lambda *a, deferred=False, **k: made(*a, **k))


def test_deferred_findings_are_the_rendered_ones(matcher, monkeypatch):
    texts = _texts()
    deferred = [matcher.diagnose(collect(t)) for t in texts]
    _eager(monkeypatch)
    rendered = [matcher.diagnose(collect(t)) for t in texts]
    alternatives = 0
    for text, got, want in zip(texts, deferred, rendered, strict=True):
        assert all(type(f) is M.Finding for f in want.findings)
        assert got == want, text[:200]
        assert [f.to_dict() for f in got.findings] == [f.to_dict() for f in want.findings]
        alternatives += len(got.findings) - 1
    assert alternatives > 20  # findings whose texts were left to render


def test_a_deferred_finding_renders_once_and_answers_as_a_finding(matcher):
    ev = collect("RuntimeError: CUDA error: an illegal memory access was encountered\n")
    d = matcher.diagnose(ev)
    assert d.findings
    top = d.findings[0]
    assert "_pending" in top.__dict__  # the answer's texts too are made when an output first reads them
    assert top.what and top == M._finding(next(r for r in matcher.rules if r.id == top.rule), ev)
    assert "_pending" not in top.__dict__
    rule = next(r for r in matcher.rules if r.id == top.rule)
    lazy = M._finding(rule, ev, deferred=True)
    assert isinstance(lazy, M.Finding) and "_pending" in lazy.__dict__
    plain = M._finding(rule, ev)
    assert type(plain) is M.Finding
    # the cited lines and the caveats (all an abstention shows of its best candidate) are each made alone
    assert lazy.evidence == plain.evidence and "_pending" in lazy.__dict__ and "what" not in lazy.__dict__
    assert lazy.caveats == plain.caveats and "_pending" in lazy.__dict__ and "what" not in lazy.__dict__
    assert lazy.what == plain.what and "_pending" not in lazy.__dict__  # any other read makes every text
    assert (lazy.why, lazy.fix, lazy.caveats, lazy.facts) == (plain.why, plain.fix, plain.caveats, plain.facts)
    assert lazy == plain and plain == lazy and hash(lazy) == hash(plain) and repr(lazy) == repr(plain)
    again = pickle.loads(pickle.dumps(M._finding(rule, ev, deferred=True)))
    assert type(again) is M.Finding and again == plain
    changed = dataclasses.replace(M._finding(rule, ev, deferred=True), confidence=0.1)
    assert changed == dataclasses.replace(plain, confidence=0.1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.what = "x"  # type: ignore[misc]


def test_an_alternative_whose_text_fails_to_render_is_reported_not_raised(matcher, monkeypatch):
    """An alternative's text is made when an output reads it: a rule whose text raises there says so in the
    finding instead of failing the output; the answer and the other findings are kept."""
    text = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    d = matcher.diagnose(collect(text))
    assert len(d.findings) > 1
    broken = d.findings[1].rule
    from diagnose import explain

    made = explain.explain_finding

    def failing(rule, evidence, context=None):
        if rule.id == broken:
            raise ValueError("a template value the rule did not expect")
        return made(rule, evidence, context)

    monkeypatch.setattr(explain, "explain_finding", failing)
    d = matcher.diagnose(collect(text))
    assert d.findings[1].rule == broken
    shown = [f.to_dict() for f in d.findings]
    assert "could not be made" in shown[1]["what"] and "ValueError" in shown[1]["what"]
    assert shown[0]["what"] and "could not be made" not in shown[0]["what"]


def test_a_capped_alternative_stays_deferred(matcher):
    """An alternative whose confidence is capped at the answer's (or that a causal chain ranks below its
    cause) gains a fact without its texts being made: they are made when read, with the fact last."""
    capped = 0
    for text in _texts():
        d = matcher.diagnose(collect(text))
        for f in d.findings[1:]:
            if "_pending" not in f.__dict__ or not f.__dict__["_pending"][-1]:
                continue
            capped += 1
            added = f.__dict__["_pending"][-1]
            assert f.facts[-len(added) :] == added
            assert "_pending" not in f.__dict__
    assert capped > 5
