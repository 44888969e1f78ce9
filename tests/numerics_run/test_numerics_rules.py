"""Arrays → numerics facts (diagnose/run/compare.py, numerics.py) → the rule base: which failure mode each shape of error gets.

The corpus kernels cover one case per mode through real children (test_numerics_corpus.py); these
cover the other shapes of error the rules in rules/numerics/numerics-run-*.yaml decide.
"""

from __future__ import annotations

import numpy as np
import pytest

from diagnose.evidence import Evidence
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from diagnose.run import arrays as A
from diagnose.run import compare as C
from diagnose.run import numerics as N
from diagnose.run import runfacts as R


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(default_rules())


def diagnose(matcher: Matcher, out: np.ndarray, ref: np.ndarray, dtype: str = "float32", **size: object) -> tuple:
    leaf = C.compare_arrays(out, ref, dtype, dtype, None)
    facts = R.numerics_facts([C.SizeResult("n", leaf.ok, leaves=(leaf,), **size)])  # type: ignore[arg-type]
    best = matcher.diagnose(Evidence(numerics=facts)).best
    return (None, None) if best is None else (best.failure_mode, best.rule)


RNG = np.random.default_rng(3)
V = RNG.standard_normal(1000).astype(np.float32)
M = RNG.standard_normal((64, 64)).astype(np.float32)
SENTINEL32 = np.array([N.SENTINEL_BITS["float32"]], np.uint32).view(np.float32)[0]


def test_within_tolerance_is_no_finding(matcher: Matcher) -> None:
    assert diagnose(matcher, V * (1 + 3e-7), V) == (None, None)


def test_shifted_output_is_wrong_indexing(matcher: Matcher) -> None:
    assert diagnose(matcher, np.roll(V, 1), V) == ("wrong-indexing", "numerics-run-shifted")


def test_transposed_output_is_wrong_indexing(matcher: Matcher) -> None:
    assert diagnose(matcher, M.T.copy(), M) == ("wrong-indexing", "numerics-run-transposed")


def test_whole_columns_wrong_is_wrong_indexing(matcher: Matcher) -> None:
    out = M.copy()
    out[:, 16:20] += 2.5  # a bias indexed with the wrong column block
    assert diagnose(matcher, out, M) == ("wrong-indexing", "numerics-run-structured-mismatch")


def test_garbage_past_the_last_full_block_is_a_missing_mask(matcher: Matcher) -> None:
    out = V.copy()
    out[896:] = RNG.standard_normal(104).astype(np.float32) * 7  # unmasked loads read whatever lies there
    assert diagnose(matcher, out, V) == ("missing-mask-tail", "numerics-run-tail")


def test_never_written_regions_are_the_launch_grid(matcher: Matcher) -> None:
    out = V.copy()
    out[896:] = SENTINEL32
    assert diagnose(matcher, out, V) == ("wrong-launch-grid", "numerics-run-unwritten-part")
    zeros = M.copy()
    zeros[48:] = 0  # torch.zeros output, the last row tiles never launched
    assert diagnose(matcher, zeros, M) == ("wrong-launch-grid", "numerics-run-zero-region")


def test_nan_rows_from_overflow_are_instability_not_indexing(matcher: Matcher) -> None:
    out = M.copy()
    out[[3, 17]] = np.nan  # rows whose exp overflowed
    assert diagnose(matcher, out, M) == ("numerical-instability", "numerics-run-nonfinite")


def test_low_precision_output_a_few_ulp_off_everywhere(matcher: Matcher) -> None:
    ref_bits = (RNG.standard_normal(4096).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    ref = A.decode(ref_bits, "bfloat16")
    steps = RNG.integers(-4, 5, 4096).astype(np.int32)  # a bfloat16 accumulator: a few ULP either way
    out = A.decode((ref_bits.astype(np.int32) + steps).astype(np.uint16), "bfloat16")
    assert diagnose(matcher, out, ref, "bfloat16") == (
        "wrong-accumulation-precision",
        "numerics-run-low-precision-everywhere",
    )


def test_runs_that_differ_race_or_read_uninitialised_memory(matcher: Matcher) -> None:
    out = V.copy()
    out[RNG.choice(1000, 40, replace=False)] += 1.0
    assert diagnose(matcher, out, V, nondeterministic=True) == ("race-global", "numerics-run-nondeterministic")
    out[RNG.choice(1000, 40, replace=False)] = np.nan
    assert diagnose(matcher, out, V, nondeterministic=True) == (
        "uninitialized-read",
        "numerics-run-uninitialized-read",
    )


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, count: int) -> np.ndarray:
    xc = x - x.mean(axis=1, keepdims=True)
    var = (xc * xc).sum(axis=1, keepdims=True) / count
    return (xc / np.sqrt(var + 1e-5) * w + b).astype(np.float32)


def test_a_variance_over_the_padded_block_is_the_padding_lanes_counted(matcher: Matcher) -> None:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((32, 768)) * 2 + 0.5).astype(np.float32)
    w, b = (rng.random(768) + 0.5).astype(np.float32), (rng.standard_normal(768) * 0.1).astype(np.float32)
    ref, out = _layer_norm(x, w, b, 768), _layer_norm(x, w, b, 1024)  # 1024: next_power_of_2(768)
    leaf = C.compare_arrays(out, ref, "float32", "float32", None)
    assert leaf.scale == pytest.approx((1024 / 768) ** 0.5, rel=1e-3) and leaf.scale_by_column
    facts = R.numerics_facts([C.SizeResult("rows=32,cols=768", False, leaves=(leaf,))])
    assert facts is not None and facts.scale_padded == "sqrt(1024/768): cols=768 counted as 1024"
    best = matcher.diagnose(Evidence(numerics=facts)).best
    assert best is not None and (best.failure_mode, best.rule) == (
        "missing-mask-tail",
        "numerics-run-scaled-by-padded-count",
    )
    # the same factor at a size that is its own block explains nothing: no padded reading, another rule
    facts = R.numerics_facts([C.SizeResult("rows=32,cols=1024", False, leaves=(leaf,))])
    assert facts is not None and facts.scale_padded is None
    best = matcher.diagnose(Evidence(numerics=facts)).best
    assert best is None or best.rule != "numerics-run-scaled-by-padded-count"


def test_values_off_by_noise_or_per_row_factors_have_no_scale() -> None:
    rng = np.random.default_rng(8)
    ref = rng.standard_normal((16, 64)).astype(np.float32)
    noisy = ref + rng.standard_normal((16, 64)).astype(np.float32) * 0.1
    per_row = ref * rng.uniform(0.5, 2.0, (16, 1)).astype(np.float32)
    assert C.compare_arrays(noisy, ref, "float32", "float32", None).scale is None
    assert C.compare_arrays(per_row, ref, "float32", "float32", None).scale is None


def test_integers_off_by_multiples_of_2_32_are_a_wrapped_int32_total(matcher: Matcher) -> None:
    ref = np.array([4321292680, 4211277445, 4342230153, 10], dtype=np.int64)
    out = ref.copy()
    out[:3] -= 1 << 32  # a running total kept in int32, widened at the store
    assert C.compare_arrays(out, ref, "int64", "int64", None).wrapped_bits == 32
    assert diagnose(matcher, out, ref, "int64") == ("wrong-accumulation-precision", "numerics-run-integer-wrapped")
    off = ref.copy()
    off[:3] -= 7
    assert C.compare_arrays(off, ref, "int64", "int64", None).wrapped_bits is None
