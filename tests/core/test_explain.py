"""Explanations from the evidence: placeholders in rule text filled with this input's values."""

from __future__ import annotations

from pathlib import Path

import diagnose
from diagnose import explain as X
from diagnose.collectors import collect
from diagnose.evidence import rule_types
from diagnose.lint import check_rules
from diagnose.matcher import Matcher
from diagnose.rules import load_rules

# alipay/PainlessInferenceAcceleration#35 (corpus/holdout/issues.yaml flood-segattn-smem-rtx3090)
SMEM = (
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, "
    "Hardware limitation: 101376. reducing the block size or `num_stages` may help\n"
)


def test_placeholders_take_the_values_and_formats() -> None:
    ctx = {"concept_requested": 163842.0, "concept_limit": 101376.0, "concept_need_cc": 8.9, "cuda_error": "x"}
    text = "Needs {concept_requested:bytes}, has {concept_limit:int}: {ratio:concept_requested/concept_limit}."
    assert X.render(text, ctx) == "Needs 160 KiB (163,842 bytes), has 101,376: 1.6×."
    assert X.render("Needs {concept_need_cc:cc}.", ctx) == "Needs 8.9 (sm_89)."
    assert X.render(
        "At {sanitizer_allocation_distance_bytes:pow2}.", {"sanitizer_allocation_distance_bytes": 2.0**33}
    ) == ("At 2^33.")


def test_an_absent_value_drops_its_sentence_or_segment_never_shows_none() -> None:
    ctx = {"concept_requested": 1024.0, "concept_limit": None}
    text = "The kernel needs more than the device has. It asks {concept_requested:bytes} of {concept_limit:bytes}. Lower it."
    out = X.render(text, ctx)
    assert out == "The kernel needs more than the device has. Lower it."
    seg = "The kernel asks {concept_requested:bytes}[[ against a limit of {concept_limit:bytes}]]."
    assert X.render(seg, ctx) == "The kernel asks 1 KiB (1,024 bytes)."
    assert (
        X.render("{ratio:concept_requested/concept_limit} over.", {"concept_requested": 1.0, "concept_limit": 0}) == ""
    )
    for value in (None, "", (), float("nan")):
        assert "None" not in X.render("A. B is {cuda_error}. C.", {"cuda_error": value})


def test_other_braces_are_text_and_nothing_is_evaluated() -> None:
    assert X.render("use `cuda:{local_rank}` per rank", {}) == "use `cuda:{local_rank}` per rank"
    assert X.placeholders("{__import__('os')} {cuda_error.__class__}") == []
    assert X.problems("{concept_reqested} {cuda_error:rot13} {ratio:cuda_code}", rule_types()) == [
        "unknown evidence symbol {concept_reqested}",
        "{cuda_error:rot13}: unknown format (known: bytes, mib, int, hex, cc, pow2, list, name, if, unless)",
        "{ratio:A/B} needs two evidence symbols",
    ]


def test_a_finding_states_this_inputs_values() -> None:
    d = diagnose.classify_log(SMEM).diagnosis
    assert d is not None and d.best is not None
    facts = dict(d.best.facts)
    assert facts["triton_required"] == "163842" and facts["triton_limit"] == "101376"
    assert "163" in d.best.what and "{" not in d.best.what + d.best.why + d.best.fix


def _rule(tmp_path: Path, what: str) -> Path:
    d = tmp_path / "rules"
    d.mkdir(parents=True)
    (d / "smem.yaml").write_text(
        f"""id: smem
title: Too much shared memory
category: runtime-assumption
failure_mode: smem-exceeds-device-limit
status: stable
confidence: 0.8
priority: 40
requires: [triton]
when: triton_resource == "shared memory"
explain:
  what: "{what}"
  why: Tiles times stages.
  fix: Lower num_stages.
references: [alipay/PainlessInferenceAcceleration#35]
examples:
  match: [{{log: "{SMEM.strip()}"}}]
  no_match: [{{log: "triton.runtime.errors.OutOfResources: out of resource: registers, Required: 1, Hardware limit: 0"}}]
"""
    )
    return d


def test_lint_checks_placeholders_against_the_rules_own_examples(tmp_path: Path) -> None:
    good = load_rules(_rule(tmp_path / "a", "It needs {triton_required:bytes}. Too much."))
    assert check_rules(good) == []
    finding = Matcher(good).diagnose(collect(SMEM)).best
    assert finding is not None and finding.what == "It needs 160 KiB (163,842 bytes). Too much."
    typo = load_rules(_rule(tmp_path / "b", "It needs {triton_requird}. Too much."))
    assert any("unknown evidence symbol {triton_requird}" in p.message for p in check_rules(typo))
    absent = load_rules(_rule(tmp_path / "c", "It needs {oom_requested_bytes:bytes}. Too much."))
    assert any("has no value on this match example" in p.message for p in check_rules(absent))
    only = load_rules(_rule(tmp_path / "d", "It needs {triton_required:bytes}."))
    assert any("every sentence needs a value" in p.message for p in check_rules(only))


# two logs of the corpus (holdout2): HeCBench dxtc2 is CUDA C++ under memcheck; triton-viz's matmul
# example is a Triton kernel under memcheck, its frame in a .py file
def _corpus_log(case: str) -> str:
    import yaml

    cases = yaml.safe_load((Path(__file__).resolve().parents[2] / "corpus/holdout2/issues.yaml").read_text())
    return next(c["log"] for c in cases if c["id"] == case)


CUDA_OOB = _corpus_log("hecbench-dxtc2-compress-oob-write")
TRITON_OOB = _corpus_log("triton-viz-matmul-example-oob-read")


def test_the_framework_comes_from_the_evidence() -> None:
    assert X.framework(collect(CUDA_OOB).context()) == "cuda"
    assert X.framework(collect(TRITON_OOB).context()) == "triton"
    assert X.framework(collect(SMEM).context()) == "triton"
    jax = "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: ptxas exited with non-zero error code 65280\n"
    assert X.framework(collect(jax).context()) == "jax"
    assert X.framework(collect("hello\n").context()) is None
    # c10's wording of a CUDA error (torch names itself nowhere else in such a log), Triton's driver wrapper
    assert X.framework(collect("RuntimeError: CUDA error: hardware stack error\n").context()) == "torch"
    triton_driver = "Triton Error [CUDA]: an illegal instruction was encountered\n"  # triton-lang/triton#8657
    assert X.framework(collect(triton_driver).context()) == "triton"
    assert X.framework(collect("main.cu:41: CUDA error: misaligned address\n").context()) == "cuda"


def test_the_fix_fits_the_framework() -> None:
    for log, fw, rule, present, absent in (
        (CUDA_OOB, "cuda", "sanitizer-oob-global-write", "if (i < n)", "tl.store"),
        (TRITON_OOB, "triton", "sanitizer-oob-just-past-end", "tl.load", "if (i < n)"),
    ):
        best = diagnose.classify_log(log).diagnosis.best
        assert best is not None and best.rule == rule
        assert present in best.fix and absent not in best.fix
        assert dict(best.facts)["framework"] == fw


def _fix_rule(tmp_path: Path, requires: str, fix: str) -> Path:
    d = _rule(tmp_path, "It needs {triton_required:bytes}. Too much.")
    p = d / "smem.yaml"
    text = p.read_text().replace("requires: [triton]", f"requires: [{requires}]")
    p.write_text(text.replace("  fix: Lower num_stages.", fix))
    return d


def test_fix_mappings_load_and_lint(tmp_path: Path) -> None:
    ok = _fix_rule(tmp_path / "a", "triton", "  fix:\n    default: Lower it.\n    triton: Lower num_stages.")
    rules = load_rules(ok)
    assert check_rules(rules) == []
    (rule,) = list(rules)
    assert rule.explain.fix == "Lower it." and dict(rule.explain.fixes) == {"triton": "Lower num_stages."}
    assert Matcher(rules).diagnose(collect(SMEM)).best.fix == "Lower num_stages."  # type: ignore[union-attr]
    wrong = load_rules(
        _fix_rule(tmp_path / "b", "triton", "  fix:\n    default: Lower it.\n    cuda: Use fewer threads.")
    )
    assert any("cannot come from cuda" in p.message for p in check_rules(wrong))
    import pytest

    from diagnose.rules import RuleLoadError

    for bad in ("  fix:\n    triton: Lower it.", "  fix:\n    default: Lower it.\n    julia: Lower it."):
        with pytest.raises(RuleLoadError):
            load_rules(_fix_rule(tmp_path / str(abs(hash(bad))), "triton", bad))


def test_a_values_own_spacing_is_kept_and_a_ratio_just_over_one_is_not_shown_as_one() -> None:
    # ptxas prints `not supported on .target 'sm_80'`: only the gap of a dropped segment is tidied
    ctx = {"compiler_first_error": "Instruction 'wgmma.fence' not supported on .target 'sm_80'"}
    assert X.render("ptxas said `{compiler_first_error}`[[ in {compiler_tool}]].", ctx) == (
        "ptxas said `Instruction 'wgmma.fence' not supported on .target 'sm_80'`."
    )
    # 50,176 bytes of static shared memory against 49,152: 1.02×, not 1×
    sizes = {"compiler_smem_bytes": 50176.0, "compiler_smem_limit_bytes": 49152.0}
    assert X.render("{ratio:compiler_smem_bytes/compiler_smem_limit_bytes} the limit.", sizes) == "1.02× the limit."
