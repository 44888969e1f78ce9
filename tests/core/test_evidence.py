"""The Evidence record: JSON round trip on real logs, schema version, and the rule context's types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnose.classify import evidence_for
from diagnose.evidence import SCHEMA_VERSION, Evidence, rule_types
from diagnose.inputs import read_inputs

CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus"


def corpus_evidence() -> list[Evidence]:
    return [evidence_for(r) for r in read_inputs([str(CORPUS / "public"), str(CORPUS / "captured")]) if r.error is None]


def test_round_trip_through_json_on_real_logs() -> None:
    evs = corpus_evidence()
    assert len(evs) > 80
    sources = set()
    for ev in evs:
        back = Evidence.from_dict(json.loads(json.dumps(ev.to_dict())))
        assert back == ev
        sources |= ev.present()
    # the real logs exercise every log-visible source
    assert {"py", "cuda", "oom", "triton", "compiler", "sanitizer", "env"} <= sources


def test_context_values_have_their_declared_types() -> None:
    from rule_engine import DataType

    types = rule_types()
    for ev in corpus_evidence():
        ctx = ev.context()
        assert set(ctx) == set(types)
        for name, value in ctx.items():
            if value is None:
                continue
            declared = types[name]
            got = DataType.from_value(value)
            assert DataType.is_compatible(got, declared) or (isinstance(value, tuple) and not value), (name, value)


def test_other_schema_versions_and_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="schema"):
        Evidence.from_dict({"schema": SCHEMA_VERSION + 1})
    with pytest.raises(ValueError, match="unknown evidence sources"):
        Evidence.from_dict({"schema": SCHEMA_VERSION, "cuda_facts": {}})
    with pytest.raises(ValueError, match="unknown fields"):
        Evidence.from_dict({"schema": SCHEMA_VERSION, "cuda": {"eror": "x"}})


def test_a_schema_1_record_still_reads_without_the_fields_schema_2_dropped() -> None:
    old = {
        "schema": 1,
        "id": "x",
        "origin": "run",
        "run": {"target": "kernel-module", "max_ulp": 2.0, "nan_outputs": 3},
    }
    ev = Evidence.from_dict(old)
    assert ev.run is not None and ev.run.target == "kernel-module"
    with pytest.raises(ValueError, match="schema 9 is not supported"):
        Evidence.from_dict({**old, "schema": 9})
    with pytest.raises(ValueError, match="unknown fields max_ulp"):
        Evidence.from_dict({**old, "schema": 2})  # the current schema has no such field
