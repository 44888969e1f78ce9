"""Wrong results printed in more layouts (diagnose/comparisons.py): observed/expected values, two named
execution paths, one call compiled and plain, a row the program flags; and what kdiag answers for them."""

from __future__ import annotations

import pytest
from corpus_logs import MATCHER, corpus_log

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.comparisons import (
    comparison_lines,
    flagged_row_lines,
    path_comparison_lines,
    values_differ,
    variant_comparison_lines,
    zero_metric_lines,
)
from diagnose.failure import has_failure
from diagnose.failure_lines import failure_lines
from diagnose.inputs import InputRecord

case = corpus_log


def unknown_kind(text: str) -> str | None:
    report = classify_record(InputRecord(id="t", text=text), MATCHER)
    d = report.diagnosis
    assert d is not None and d.category == "unknown", d
    return report.hint.kind if report.hint else None


# Logs whose printed values differ, with where each layout comes from.
PRINTED_WRONG = [
    # observed/expected rows with whole numbers (corpus/holdout8 cupy-cumsum-batch-scan-over-2pow32-wrong, cupy/cupy#10268)
    case("holdout8/issues.yaml", "cupy-cumsum-batch-scan-over-2pow32-wrong"),
    # numpy.testing.assert_equal's message, numpy/testing/_private/utils.py build_err_msg: " ACTUAL: %r" / " DESIRED: %r",
    # pasted without the exception line
    "Items are not equal:\n ACTUAL: 3\n DESIRED: 2",
    # two execution paths named in the labels (corpus/holdout8 liger-ce-loss-zero-aliased-output-buffer,
    # linkedin/Liger-Kernel#507)
    case("holdout8/issues.yaml", "liger-ce-loss-zero-aliased-output-buffer"),
    # one call through jax.jit and as it is, results in comments (corpus/holdout8 xla-gpu-int8-compare-jit-wrong-result,
    # openxla/xla#9431)
    case("holdout8/issues.yaml", "xla-gpu-int8-compare-jit-wrong-result"),
    # a row flagged by the program (corpus/holdout8 cupy-rawkernel-transposed-view-ignored, cupy/cupy#9233)
    case("holdout8/issues.yaml", "cupy-rawkernel-transposed-view-ignored"),
]


@pytest.mark.parametrize("text", PRINTED_WRONG, ids=range(len(PRINTED_WRONG)))
def test_printed_wrong_results_are_failures(text: str) -> None:
    assert failure_lines(text)
    assert has_failure(collect(text))


# The same layouts with values that agree, and look-alikes from tools' own output.
PRINTED_HEALTHY = [
    "row 0 col 1:           observed=2,           expected=2\nrow 0 last:            observed=512, expected=512",
    " ACTUAL: 2\n DESIRED: 2",
    "output_liger: 1.2258632183074951\noutput_torch_lib: 1.2258632183074951",
    "print(test(x_int8))  # [True True]\nprint(jax.jit(test)(x_int8))  # [True True]",
    "print(f(x))  # 0.5\nprint(torch.compile(f)(x))  # 0.5",
    "Elementwise Transposed        : [[1.0, 2.0], [3.0, 4.0]]\nRawKernel Transposed          : [[1.0, 2.0], [3.0, 4.0]]",
    # transformers' Trainer banners (src/transformers/trainer.py: logger.info("***** Running training *****"))
    "***** Running training *****\n  Num examples = 100\n  Num Epochs = 3\n***** eval metrics *****\n  epoch = 3.0",
    # counts beside "device"/"host" stay ids, timings stay measurements
    "host: 0 device: 1",
    "jit time: 12.1 ms\neager time: 30.5 ms",
    # one expression typed for a value and a variant of it with equal results, and for two unrelated names
    ">>> out.max(), out.min()\n(tensor(3.5000), tensor(-1.))\n>>> out_fused.max(), out_fused.min()\n(tensor(3.5000), tensor(-1.))",
    ">>> a.max()\ntensor(1.)\n>>> b.max()\ntensor(9.)",
]


@pytest.mark.parametrize("text", PRINTED_HEALTHY, ids=range(len(PRINTED_HEALTHY)))
def test_equal_values_and_look_alikes_stay_healthy(text: str) -> None:
    assert failure_lines(text) == []
    assert not has_failure(collect(text))


def test_whole_numbers_are_values_only_beside_expected_or_observed() -> None:
    assert comparison_lines("observed=3, expected=2")
    assert comparison_lines("host: 0 device: 1") == []


def test_a_generic_word_yields_to_the_path_it_names() -> None:
    # output_torch is the reference path, output_triton the one under test
    assert comparison_lines("output_triton: 0.5\noutput_torch: 0.25") == [(1, "output_triton: 0.5")]


def test_booleans_are_compared_as_values() -> None:
    assert values_differ("[True True]", "[False False]")
    assert not values_differ("[True, False]", "[True, False]")


def test_a_compiled_call_is_compared_with_the_same_call_plain() -> None:
    # torch.compile's documented call form, written here: the compiled call's line is the failure
    text = ">>> print(f(x))  # tensor([1., 2.])\n>>> print(torch.compile(f)(x))  # tensor([1., 0.])"
    assert path_comparison_lines(text) == [(2, ">>> print(torch.compile(f)(x))  # tensor([1., 0.])")]
    # another function's result is no comparison
    assert path_comparison_lines("print(f(x))  # [1]\nprint(jax.jit(g)(x))  # [2]") == []


def test_one_expression_typed_for_a_value_and_a_variant_of_it() -> None:
    # verl-project/verl#2656 (corpus/holdout16 h16a-verl-fused-lce-vocab-tail-logprobs): the same statistics of
    # the fused kernel's log-probabilities and of the unfused path's, typed at a prompt; both result lines
    text = case("holdout16/issues.yaml", "h16a-verl-fused-lce-vocab-tail-logprobs")
    assert [n for n, _ in variant_comparison_lines(text)] == [2, 4]
    assert has_failure(collect(text))
    assert unknown_kind(text) == "wrong-result"
    # the device a tensor is printed on is not one of its values
    same = ">>> y.sum()\ntensor(2., device='cuda:0')\n>>> y_ref.sum()\ntensor(2., device='cuda:1')"
    assert variant_comparison_lines(same) == []


def test_a_flagged_row_needs_an_unflagged_row_beside_it() -> None:
    assert flagged_row_lines("x[3] = 7.0  <-- mismatch\nx[4] = 8.0") == [(1, "x[3] = 7.0  <-- mismatch")]
    assert flagged_row_lines("result: 7.0 *****") == []


def test_what_kdiag_answers_for_them() -> None:
    # a compiled path that disagrees with the plain one: the compiler or the program, with the check that decides
    # (an exact result that changes under jax.jit is decided as XLA's: tests/core/test_h30b_families.py)
    compiled = ">>> print(f(x))  # tensor([1., 2.])\n>>> print(torch.compile(f)(x))  # tensor([1., 0.])"
    assert unknown_kind(compiled) == "compiled-path-differs"
    for case_id in (
        "cupy-cumsum-batch-scan-over-2pow32-wrong",
        "liger-ce-loss-zero-aliased-output-buffer",
        "cupy-rawkernel-transposed-view-ignored",
    ):
        assert unknown_kind(case("holdout8/issues.yaml", case_id)) == "wrong-result", case_id


def test_a_metric_at_zero_beside_the_same_metric_of_a_reference() -> None:
    # written here in the "metric (baseline metric)" layout; the zero alone, an equal reference, and metrics
    # whose zero is the good end of their scale stay healthy
    assert zero_metric_lines("accuracy: 0.0 (baseline accuracy: 0.85)") == [
        (1, "accuracy: 0.0 (baseline accuracy: 0.85)")
    ]
    assert zero_metric_lines("acc = 0.0\nref_acc = 0.91") == [(1, "acc = 0.0")]
    assert zero_metric_lines("accuracy: 0.0") == []
    assert zero_metric_lines("accuracy: 0.0, baseline accuracy: 0.0") == []
    assert zero_metric_lines("loss: 0.0 (reference loss: 0.3)") == []
    assert zero_metric_lines("accuracy: 0.8 (baseline accuracy: 0.85)") == []
