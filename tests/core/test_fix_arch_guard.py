"""A fix that guards code with `__CUDA_ARCH__` names the arch-specific instructions the guard does not fit
(wgmma, setmaxnreg, tcgen05: an `a` target and a `__CUDA_ARCH_FEAT_*` guard), and `kdiag rules lint` flags
one that does not.

The logs: ptxas's line for wgmma on a plain sm_90 target as openxla/xla#6523 (corpus/holdout13
h13b-xla-triton-bump-wgmma-needs-ptx80) prints it, with the path of a user's own PTX file; ptxas 13.0.88's
message "Feature '%s' cannot be compiled for architecture '%s'" (strings of bin/ptxas, the catalogue's
source) filled with setmaxnreg and sm_120."""

from __future__ import annotations

import dataclasses

import pytest

from diagnose.classify import classify_record
from diagnose.inputs import InputRecord
from diagnose.lint_arch import GUARD_ALLOWED, arch_guard, check_arch_guard, names_arch_specific
from diagnose.matcher import Matcher
from diagnose.rules import default_rules

RULES = default_rules()
MATCHER = Matcher(RULES)


def _best(text: str):
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    assert report.diagnosis is not None and report.diagnosis.best is not None, report.status
    return report.diagnosis.best


@pytest.mark.parametrize(
    "text",
    [
        "ptxas /home/u/kernel.ptx, line 303; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'\n",
        "ptxas error   : Feature 'setmaxnreg' cannot be compiled for architecture 'sm_120'\n",
    ],
)
def test_arch_specific_instruction_gets_the_a_target(text: str) -> None:
    f = _best(text)
    assert f.category == "runtime-assumption"
    assert "sm_90a" in f.fix
    if arch_guard(f.fix):  # a guard it recommends is said not to fit these instructions
        assert names_arch_specific(f.fix)


@pytest.mark.parametrize("rule_id", ["concept-unsupported-on-arch", "ptxas-feature-not-on-architecture"])
def test_lint_flags_a_guard_without_the_arch_specific_note(rule_id: str) -> None:
    rule = RULES.get(rule_id)
    assert rule is not None
    assert check_arch_guard(rule) == []
    old = "Compile for an arch with the feature, or guard the code with `#if __CUDA_ARCH__ >= 900` and a fallback."
    broken = dataclasses.replace(rule, explain=dataclasses.replace(rule.explain, fix=old, fixes=(("cuda", old),)))
    problems = check_arch_guard(broken)
    assert [p.message.split(")")[0] for p in problems] == ["explain.fix (default", "explain.fix (cuda"]


def test_a_guard_for_features_every_later_arch_keeps_is_allowed_by_name() -> None:
    assert set(GUARD_ALLOWED) <= {r.id for r in RULES}
    rule = RULES.get("nvcc-intrinsic-needs-newer-arch")
    assert rule is not None and arch_guard(rule.explain.fix) and check_arch_guard(rule) == []
    f = _best(
        # cudafe++ 13.0.88's message (the catalogue's source for nvcc-feature-needs-newer-arch)
        "kernel.cu(12): error: atomic add and sub for 64-bit float is supported on architecture sm_60 or above.\n"
    )
    assert "__CUDA_ARCH__" in f.fix and names_arch_specific(f.fix)


def test_words() -> None:
    assert arch_guard("guard the path with `__CUDA_ARCH__`")
    assert not arch_guard("guard it with `__CUDA_ARCH_FEAT_SM90_ALL`")
    assert not names_arch_specific("guard the call with `#if __CUDA_ARCH__ >= 600`")
