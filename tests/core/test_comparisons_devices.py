"""One expression typed for the GPU and for the CPU in an interactive session, with different printed results
(diagnose.comparisons.device_comparison_lines): a failed check that prints no error.  On the two public reports it
was learned from (corpus/holdout85, corpus/holdout87) and on other sessions' shapes, with the near misses that must
stay healthy."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log

from diagnose.comparisons import device_comparison_lines
from diagnose.report import next_check


def test_the_same_call_under_gpu_and_cpu_headers() -> None:
    log = corpus_log("holdout87", "h87c-jax-categorical-nan-gpu-argmax-sentinel")
    assert [s for _, s in device_comparison_lines(log)] == [
        "DeviceArray(2147483647, dtype=int32)",
        "DeviceArray(1, dtype=int32)",
    ]


def test_a_julia_model_and_its_gpu_copy() -> None:
    log = corpus_log("holdout85", "h85c-nnlib-cudnn-relu-drops-nan")
    assert [s for _, s in device_comparison_lines(log)] == ["NaN", "0.0"]


def test_a_torch_expression_moved_to_the_gpu() -> None:
    log = ">>> torch.cumsum(x, 0)[-1]\ntensor(4096.)\n>>> torch.cumsum(x.cuda(), 0)[-1]\ntensor(4095.9980, device='cuda:0')\n"
    assert device_comparison_lines(log) == []  # within the comparison's tolerance: healthy
    log = (
        ">>> torch.cumsum(x, 0)[-1]\ntensor(4096.)\n>>> torch.cumsum(x.cuda(), 0)[-1]\ntensor(2048., device='cuda:0')\n"
    )
    assert [n for n, _ in device_comparison_lines(log)] == [2, 4]


def test_equal_results_and_different_expressions_stay_healthy() -> None:
    same = "# GPU\n>>> f(x)\narray([1., 2.])\n# CPU\n>>> f(x)\narray([1., 2.])\n"
    other = "# GPU\n>>> f(x)\narray([1., 2.])\n# CPU\n>>> g(x)\narray([5., 6.])\n"
    one_device = ">>> f(x)\narray([1., 2.])\n>>> f(y)\narray([5., 6.])\n"
    assert device_comparison_lines(same) == device_comparison_lines(other) == device_comparison_lines(one_device) == []
    assert classify_text(same).category == "no-failure"


def test_the_unmatched_answer_asks_for_the_wrong_result_check() -> None:
    report = classify_text(corpus_log("holdout87", "h87c-jax-categorical-nan-gpu-argmax-sentinel"))
    assert report.category == "unknown"
    assert report.hint is not None and report.hint.kind == "wrong-result"
    assert "bit for bit" in (next_check(report) or "")


# Rust's assert_eq! as rustc 1.95.0 prints it, captured here from a two-line program (`assert_eq!(a, b)` on two f32
# values, and on two Vec<f32> with a message)
RUST_NUMBERS = (
    "thread 'main' (29129) panicked at t.rs:4:5:\nassertion `left == right` failed\n  left: 25.926\n right: 57.6732\n"
)
RUST_ARRAYS = (
    "thread 'main' (29147) panicked at t2.rs:4:5:\nassertion `left == right` failed: gpu result differs\n"
    "  left: [1.0, 2.0]\n right: [1.0, 3.0]\n"
)


def test_a_rust_assert_eq_on_numbers_that_differ_is_a_wrong_result() -> None:
    from diagnose.comparisons import rust_assert_eq_lines

    assert rust_assert_eq_lines(RUST_NUMBERS) == [(2, "assertion `left == right` failed")]
    assert rust_assert_eq_lines(RUST_ARRAYS) == [(2, "assertion `left == right` failed: gpu result differs")]
    report = classify_text(corpus_log("holdout85", "h85c-candle-conv2d-noncontiguous-kernel-im2col-offset"))
    assert report.hint is not None and report.hint.kind == "wrong-result"
    # values that are no numbers are left to the test's own words
    assert rust_assert_eq_lines('assertion `left == right` failed\n  left: "cuda"\n right: "cpu"\n') == []


def test_values_that_differ_between_devices_by_design_stay_healthy() -> None:
    # each device has its own random generator; timings and memory differ by nature
    draws = ">>> torch.randn(3)\ntensor([ 0.1, -1.2,  0.4])\n>>> torch.randn(3, device='cuda')\ntensor([ 1.5,  0.3, -0.7], device='cuda:0')\n"
    timing = "# GPU\n>>> time_it(f, x)\n0.0012\n# CPU\n>>> time_it(f, x)\n0.0871\n"
    assert device_comparison_lines(draws) == device_comparison_lines(timing) == []
