"""Explanations from the evidence: placeholders in rule text filled with this input's values."""

from __future__ import annotations

from pathlib import Path

import diagnose
from diagnose import explain as X
from diagnose.clip import MAX_TEXT
from diagnose.collectors import collect
from diagnose.evidence import rule_types
from diagnose.formats import MAX_NAME
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
    assert X.render("CUDA {gpu_driver_cuda:cudaver}.", {"gpu_driver_cuda": 12020}) == "CUDA 12.2."
    assert X.render("{run_exact_fraction:percent} right.", {"run_exact_fraction": 0.0159}) == "1.59% right."
    assert X.render("{concept_requested:bytes} past it.", {"concept_requested": 1}) == "1 byte past it."
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
        "{cuda_error:rot13}: unknown format (known: bytes, mib, int, hex, cc, smnum, ccnum, cudaver, percent, pow2, list, name, if, unless)",
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
    # count words are checked like formats; a count form renders on the examples
    words = load_rules(_rule(tmp_path / "e", "It needs {triton_required:hex|byte|bytes}. Too much."))
    assert any("a count agreeing with a word takes no format" in p.message for p in check_rules(words))
    counted = load_rules(_rule(tmp_path / "f", "It needs {triton_required:int|byte|bytes}. Too much."))
    assert check_rules(counted) == []
    assert Matcher(counted).diagnose(collect(SMEM)).best.what == "It needs 163,842 bytes. Too much."  # type: ignore[union-attr]


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
    # a C++ program's uncaught exception with no Python in the log (Open3D, corpus/holdout70): C++ advice; the same
    # line under a Python traceback stays the Python program's
    cxx = "terminate called after throwing an instance of 'std::runtime_error'\n  what():  Unimplemented device\n"
    assert X.framework(collect(cxx).context()) == "cuda"
    python = 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nRuntimeError: x\n' + cxx
    assert X.framework(collect(python).context()) is None


def test_the_fix_fits_the_framework() -> None:
    for log, fw, rule, present, absent in (
        (CUDA_OOB, "cuda", "sanitizer-oob-global-write", "`__device__`", "tl.store"),
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


def test_a_count_agrees_with_its_word() -> None:
    text = "memcheck found {sanitizer_error_count:int|error|errors}."
    assert X.render(text, {"sanitizer_error_count": 1}) == "memcheck found 1 error."
    assert X.render(text, {"sanitizer_error_count": 4096}) == "memcheck found 4,096 errors."
    assert X.render(text, {"sanitizer_error_count": 0}) == "memcheck found 0 errors."
    # the word alone agrees a verb; a list counts its items; bytes keep their unit before the word
    verb = "{numerics_mismatched:int} of {numerics_total:int} elements {numerics_mismatched|differs|differ}."
    assert X.render(verb, {"numerics_mismatched": 1, "numerics_total": 4096}) == "1 of 4,096 elements differs."
    assert X.render(verb, {"numerics_mismatched": 7, "numerics_total": 4096}) == "7 of 4,096 elements differ."
    kinds = "The {sanitizer_kinds|kind is|kinds are} {sanitizer_kinds}."
    assert X.render(kinds, {"sanitizer_kinds": ["oob"]}) == "The kind is oob."
    assert X.render(kinds, {"sanitizer_kinds": ["oob", "race"]}) == "The kinds are oob, race."
    # a count that is not a number has no word: its sentence is left out
    assert X.render("A. It is {cuda_error|error|errors}. B.", {"cuda_error": "x"}) == "A. B."
    assert X.problems("{sanitizer_error_count:hex|error|errors}", rule_types()) == [
        "{sanitizer_error_count:hex|error|errors}: a count agreeing with a word takes no format, int, bytes or mib"
    ]
    assert X.problems("{ratio:sanitizer_error_count/sanitizer_warning_count?}", rule_types()) != []


def test_a_zero_count_marked_so_drops_its_segment_and_its_connective() -> None:
    text = "The output is not finite: [[{numerics_pos_inf:int?} +Inf]][[ and {numerics_neg_inf:int?} -Inf]]."
    both = {"numerics_pos_inf": 3, "numerics_neg_inf": 2}
    assert X.render(text, both) == "The output is not finite: 3 +Inf and 2 -Inf."
    assert X.render(text, {**both, "numerics_pos_inf": 0}) == "The output is not finite: 2 -Inf."
    assert X.render(text, {**both, "numerics_neg_inf": 0}) == "The output is not finite: 3 +Inf."
    rows = (
        "Wrong in a pattern ([[{numerics_bad_rows:int?} whole rows]][[ and {numerics_bad_cols:int?} whole columns]])."
    )
    assert X.render(rows, {"numerics_bad_rows": 0, "numerics_bad_cols": 4}) == "Wrong in a pattern (4 whole columns)."
    assert X.render(rows, {"numerics_bad_rows": 0, "numerics_bad_cols": 0}) == "Wrong in a pattern."
    away = "An access past the end[[ ({sanitizer_allocation_distance_bytes:bytes?} away)]]."
    assert X.render(away, {"sanitizer_allocation_distance_bytes": 0}) == "An access past the end."
    assert X.render(away, {"sanitizer_allocation_distance_bytes": 8}) == "An access past the end (8 bytes away)."
    # without the mark a zero is a value like any other
    assert X.render("It ran {sanitizer_error_count:int} times.", {"sanitizer_error_count": 0}) == "It ran 0 times."


def test_a_dropped_segment_leaves_no_dangling_connective() -> None:
    ctx = {"sanitizer_kernel": "k", "cuda_error": None}
    assert X.render("In {sanitizer_kernel} and[[ {cuda_error}]].", ctx) == "In k."
    assert X.render("In {sanitizer_kernel},[[ {cuda_error}]].", ctx) == "In k."
    assert X.render("In {sanitizer_kernel}[[ ({cuda_error})]]; more.", ctx) == "In k; more."
    assert X.render("In {sanitizer_kernel}: [[{cuda_error}]].", ctx) == "In k."
    # a connective between kept words stays
    assert X.render("A write[[ of {cuda_error}]] and a read.", ctx) == "A write and a read."


def test_a_messages_own_period_does_not_double_the_sentences() -> None:
    ctx = {"cuda_error": "an illegal memory access was encountered.", "py_exc_message": "cut..."}
    assert (
        X.render("The runtime said {cuda_error}.", ctx) == "The runtime said an illegal memory access was encountered."
    )
    assert X.render('It said "{cuda_error}".', ctx) == 'It said "an illegal memory access was encountered".'
    assert X.render("It said[[ {cuda_error}]].", ctx) == "It said an illegal memory access was encountered."
    assert X.render("It said {py_exc_message}.", ctx) == "It said cut..."
    assert X.render('It said "{py_exc_message}".', ctx) == 'It said "cut...".'


def test_a_long_message_is_cut_at_a_word_and_keeps_its_key_part() -> None:
    # torch's wording of a CUDA error (pytorch/pytorch#51223 has this first line)
    msg = (
        "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be "
        "asynchronously reported at some other API call, so the stacktrace below might be incorrect."
    )
    out = X.format_value(msg)
    assert out.startswith("an illegal memory access was encountered") and out.endswith("...")
    assert len(out) <= MAX_TEXT and out[:-3] == msg[26 : 26 + len(out) - 3]
    assert msg[26 + len(out) - 3] in " \n"  # cut before a space: no half word
    assert X.format_value("RuntimeError: short") == "RuntimeError: short"  # short text is kept whole
    one_word = "x" * 150
    assert X.format_value(one_word) == "x" * 97 + "..."


def test_an_ellipsis_in_the_text_is_neither_a_sentence_end_nor_a_gap() -> None:
    ctx = {"sanitizer_kernel": "k", "cuda_error": None}
    text = 'It printed "Write access at[[ {cuda_error}]] ... and Read access at ...". In {sanitizer_kernel}.'
    assert X.render(text, ctx) == 'It printed "Write access at ... and Read access at ...". In k.'
    # a sentence after an ellipsis or "e.g." is not split off (and so not dropped alone)
    assert X.render("It prints `read ... Address {cuda_error}`. Fine.", ctx) == "Fine."
    assert X.render("See e.g. `{cuda_error}`. Fine.", ctx) == "Fine."


def test_segments_nest() -> None:
    text = "Out of bounds.[[ It lies {sanitizer_allocation_relation} it[[ ({sanitizer_allocation_distance_bytes:bytes?} away)]].]]"
    ctx = {"sanitizer_allocation_relation": "after", "sanitizer_allocation_distance_bytes": 0}
    assert X.render(text, ctx) == "Out of bounds. It lies after it."
    assert (
        X.render(text, {**ctx, "sanitizer_allocation_distance_bytes": 8})
        == "Out of bounds. It lies after it (8 bytes away)."
    )
    assert X.render(text, {**ctx, "sanitizer_allocation_relation": None}) == "Out of bounds."
    assert X.required_text(text) == "Out of bounds."


def test_a_long_log_line_loses_its_time_stamp_and_directories_first() -> None:
    # the shape of an XLA log line (abseil time stamp, glog severity and file) and of a THC check
    xla = (
        "2024-04-09 22:39:58.055899: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call "
        "to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    )
    assert X.format_value(xla) == "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    thc = (
        "THCudaCheck FAIL file=/gpfs/home/u/pytorch/torch/lib/THC/generic/THCTensorMathPointwise.cu line=247 "
        "error=8 : invalid device function"
    )
    assert (
        X.format_value(thc)
        == "THCudaCheck FAIL file=.../THCTensorMathPointwise.cu line=247 error=8 : invalid device function"
    )


def test_a_long_function_name_keeps_its_innermost_scopes() -> None:
    # the kernel name of numba's test_cuda_array_interface under memcheck (corpus holdout2)
    sig = "cudapy::numba::cuda::tests::cudapy::test_cuda_array_interface::TestCudaArrayInterface::test_kernel_arg$241(Array<float, 1>)"
    short = X.render("{sanitizer_kernel:name}", {"sanitizer_kernel": sig})
    assert short == "...::cuda::tests::cudapy::test_cuda_array_interface::TestCudaArrayInterface::test_kernel_arg$241"
    assert len(short) <= MAX_NAME  # only the outer scopes that had to go
    assert (
        X.render("In {sanitizer_kernel:name}.", {"sanitizer_kernel": "void k<float, 256>(float*)"})
        == "In k<float, 256>."
    )


def test_the_facts_read_show_a_long_kernel_name_by_its_own_part() -> None:
    sig = "cudapy::numba::cuda::tests::cudapy::test_cuda_array_interface::TestCudaArrayInterface::test_kernel_arg$241(Array<float, 1>)"
    facts = dict(X.read_facts(["sanitizer_kernel"], {"sanitizer_kernel": sig}))
    assert facts["sanitizer_kernel"].endswith("::TestCudaArrayInterface::test_kernel_arg$241")


def test_tidying_near_the_marks_is_the_patterns_own_substitution() -> None:
    """The gaps dropped segments leave are tidied by matching only near each mark: the same text as each
    pattern's ``sub`` over the whole text, on every short text of the characters the patterns read."""
    import random

    pieces = [" ", "\t", ",", ";", ":", "(", ")", "[", "]", "\0", "and", "or", "but", "with", "plus", ".", "..", "x"]
    pieces += ["y\n", "\n", "a", "s", "stand ", "Use "]
    rng = random.Random(7)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    texts += ["Check the driver (\0) and \0, then retry.", "\0, or rebuild: \0.", "Reads \0 and writes (\0)"]
    changed = 0
    for text in texts:
        for pattern, repl in (*X._DANGLING, *X._DROPPED_GAP):
            want = pattern.sub(repl, text)
            assert X._sub_near_marks(pattern, repl, text) == want, (pattern.pattern, text)
            changed += want != text
    assert changed > 1000  # the texts exercise the patterns, not only texts they leave alone


def test_a_capability_is_written_as_its_sm_digits_and_as_an_arch_list_entry():
    # a build's architecture flags need the GPU's capability in two spellings: nvcc's "75" and PyTorch's "7.5"
    from diagnose.formats import format_value

    assert format_value(7.5, "smnum") == "75"
    assert format_value(12.0, "smnum") == "120"
    assert format_value(8.6, "ccnum") == "8.6"
    assert format_value(3.7, "cc") == "3.7 (sm_37)"
