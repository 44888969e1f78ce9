"""The bundled rule base: it loads, every example behaves, and it covers the taxonomy (Sigma-style lint)."""

from __future__ import annotations

import pytest

from diagnose.lint import check_rule, errors
from diagnose.rules import default_rules, load_rules

RULES = default_rules()


def test_bundled_rules_load_and_lint_clean() -> None:
    rules = load_rules(include_deprecated=True)
    offenders = [str(p) for r in rules for p in errors(check_rule(r))]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("rule", list(RULES), ids=lambda r: r.id)
def test_rule_examples(rule) -> None:
    problems = errors(check_rule(rule))
    assert not problems, "\n".join(map(str, problems))


def test_size_and_shape_of_the_rule_base() -> None:
    assert len(RULES) >= 60
    cats = {r.category for r in RULES}
    assert cats == {"kernel-logic", "environment", "runtime-assumption"}
    for r in RULES:
        assert r.path.split("/")[0] in {
            "cuda",
            "compiler",
            "triton",
            "sanitizer",
            "environment",
            "numerics",
            "oom",
            "process",
            "python",
            "gpu",
            "run",
            "concept",
            "catalogue",  # rules over concept facts; the decided message families
            "kb",
        }, r.path
        assert r.references and all(
            ref.startswith(("http", "corpus/", "catalogue/")) or "#" in ref for ref in r.references
        ), r.id


# failure modes of TAXONOMY.md that a log can show; each needs at least one rule
LOG_VISIBLE_MODES = {
    # kernel-logic
    "oob-global-read",
    "oob-global-write",
    "oob-shared",
    "race-shared-memory",
    "race-global",
    "uninitialized-read",
    "barrier-divergence-deadlock",
    "hang",
    "numerical-instability",
    "device-assert",
    "compile-source-error",
    "language-misuse",
    "memory-leak",
    "wrong-result",
    # environment
    "driver-too-old",
    "no-kernel-image-for-arch",
    "library-missing",
    "version-skew",
    "nvml-driver-mismatch",
    "no-gpu-visible",
    "gpu-hardware-fault",
    "oom-other-process",
    "exclusive-compute-mode",
    "mig-config",
    "permission-denied",
    "fork-after-cuda-init",
    "toolchain-missing",
    # runtime-assumption
    "noncontiguous-input",
    "dtype-unexpected",
    "device-mismatch",
    "misaligned-input",
    "int32-index-overflow",
    "grid-dim-limit",
    "smem-exceeds-device-limit",
    "too-many-resources",
    "arch-feature-unavailable",
    "oom-problem-size",
    "empty-input",
    "stream-assumption",
}


def test_every_log_visible_failure_mode_has_a_rule() -> None:
    have = {r.failure_mode for r in RULES}
    assert not LOG_VISIBLE_MODES - have, sorted(LOG_VISIBLE_MODES - have)
