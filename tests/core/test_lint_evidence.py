"""The lint of explanations against the rule's own examples: what/why names a value of the evidence,
and a fix that names one framework's API does not reach another framework's inputs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from diagnose import lint_evidence as L
from diagnose.cli import main
from diagnose.lint import check_rules, errors
from diagnose.rules import default_rules, load_rules

# the runtime's own wording of cudaErrorIllegalAddress (cudaGetErrorString), once from a CUDA C++ program
# and once from a Triton kernel's launch
CUDA_CPP = "CUDA error: an illegal memory access was encountered"
TRITON = "triton kernel add_kernel launched\\nRuntimeError: CUDA error: an illegal memory access was encountered"

RULE = """\
id: {id}
title: An illegal address
category: kernel-logic
failure_mode: oob-global-access
status: stable
confidence: 0.5
priority: 10
requires: [cuda]
when: cuda_error == "cudaErrorIllegalAddress"
explain:
  what: "{what}"
  why: A kernel read or wrote outside its buffers.
  fix: {fix}
references:
  - https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html
examples:
  match:
    - log: "{first}"
    - log: "{second}"
  no_match:
    - log: "RuntimeError: CUDA error: out of memory"
"""


def _write(root: Path, rid: str, what: str, fix: str = "Check the index.", first: str = CUDA_CPP) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = RULE.format(id=rid, what=what, fix=fix, first=first, second=TRITON)
    (root / f"{rid}.yaml").write_text(textwrap.dedent(text))
    return root


def _messages(root: Path) -> list[str]:
    return [str(p) for p in check_rules(load_rules(root))]


def test_a_text_without_evidence_is_reported_and_one_with_it_is_not(tmp_path: Path) -> None:
    bare = _messages(_write(tmp_path / "a", "bare", "A kernel touched memory it does not own."))
    assert len(bare) == 1
    assert bare[0].startswith("bare.yaml:1: explain.what/why names no value of the evidence (no placeholder)")
    assert "cuda_error" in bare[0]  # the hint names a fact the example has
    named = _messages(_write(tmp_path / "b", "named", "A kernel touched memory. The runtime reported {cuda_error}."))
    assert named == []


def test_a_placeholder_absent_on_one_example_is_reported_at_that_example(tmp_path: Path) -> None:
    # the Triton launch raises a Python exception; the CUDA C++ line has none: its segment drops there
    root = _write(tmp_path, "partial", "A kernel touched memory it does not own.[[ It raised {py_exc_type}.]]")
    got = _messages(root)
    assert len(got) == 1 and got[0].startswith("partial.yaml:18: explain.what/why shows no value on this")
    assert "cuda_error" in got[0]
    root2 = _write(tmp_path / "c", "one", "Bad access. The runtime said {cuda_message}.[[ It raised {py_exc_type}.]]")
    assert _messages(root2) == []


def test_framework_api_in_an_unkeyed_fix_is_reported_for_another_frameworks_example(tmp_path: Path) -> None:
    what = "A kernel touched memory. The runtime reported {cuda_error}."
    unkeyed = _messages(_write(tmp_path / "a", "unkeyed", what, fix="Mask the load with tl.load(ptr, mask=m)."))
    assert len(unkeyed) == 1
    assert unkeyed[0].startswith("unkeyed.yaml:18: explain.fix names triton (`tl.load`) API")
    assert "comes from cuda" in unkeyed[0]
    keyed_fix = "\n    default: Check the index.\n    triton: Mask the load with tl.load(ptr, mask=m)."
    assert _messages(_write(tmp_path / "b", "keyed", what, fix=keyed_fix)) == []
    # a C++ barrier in the default text reaches the Triton example
    cpp = _messages(_write(tmp_path / "c", "cpp", what, fix="Add __syncthreads() between the phases."))
    api = [m for m in cpp if "API, but this match example comes from" in m]  # (the owner check speaks too)
    assert len(api) == 1 and "cpp.yaml:19:" in api[0] and "cuda (`__syncthreads`)" in api[0]


def test_lint_fails_on_a_rule_without_evidence_in_its_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _write(tmp_path, "bare", "A kernel touched memory it does not own.")
    assert main(["rules", "lint", "--rules", str(root)]) == 1
    assert "bare.yaml:1: explain.what/why names no value of the evidence" in capsys.readouterr().out
    good = _write(tmp_path / "g", "good", "A kernel touched memory. The runtime reported {cuda_error}.")
    assert main(["rules", "lint", "--rules", str(good)]) == 0


def test_a_family_without_samples_is_rendered_on_its_filled_templates() -> None:
    rules = default_rules()
    family = next(r for r in rules if "family" in r.tags and not r.match_examples and L.family_template_contexts(r))
    contexts = L.family_template_contexts(family)
    fid = getattr(family.compiled, "family", family.id)  # a candidate's rule is rendered on its family's messages
    assert all(fid in (ctx.get("concept_families") or ()) for _, ctx in contexts)
    assert all(ctx.get("concept_message") for _, ctx in contexts)


def test_the_allow_list_names_rules_and_the_bundled_base_has_no_errors() -> None:
    rules = load_rules(include_deprecated=True)
    assert L.check_allow_list({r.id for r in rules}) == []
    assert [str(p) for p in L.check_allow_list(set())] == [
        f"diagnose/lint_evidence.py:1: NO_EVIDENCE_ALLOWED names {rid!r}, which is no rule"
        for rid in sorted(L.NO_EVIDENCE_ALLOWED)
    ]
    assert errors(check_rules(rules)) == []
