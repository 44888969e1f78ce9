"""diagnose/run/numerics.py and the comparison around it, on arrays (pure math: constructing arrays is fine)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from diagnose.run import arrays as A
from diagnose.run import compare as C
from diagnose.run import numerics as N
from diagnose.run import runfacts as R

F32 = "float32"


def cmp(out: np.ndarray, ref: np.ndarray, dtype: str = F32, tol: object = None) -> C.LeafResult:
    return C.compare_arrays(out, ref, dtype, dtype, tol)


# --- ULPs on the dtype's own bits -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "np_dtype"), [("float64", np.float64), ("float32", np.float32), ("float16", np.float16)]
)
def test_ulp_counts_representable_steps(dtype: str, np_dtype: type) -> None:
    one = np_dtype(1.0)
    up = np.nextafter(one, np_dtype(2))
    up3 = np.nextafter(np.nextafter(up, np_dtype(2)), np_dtype(2))
    tiny = np.nextafter(np_dtype(0), np_dtype(1))  # the smallest subnormal
    got = N.ulp_distance(
        np.array([up, up3, tiny, -tiny, -0.0], np_dtype), np.array([one, one, 0, tiny, 0.0], np_dtype), dtype
    )
    assert got.tolist() == [1.0, 3.0, 1.0, 2.0, 0.0]  # across zero: -tiny .. +tiny is 2 steps; -0 == +0


def test_ulp_bfloat16_and_float8_from_their_raw_bits() -> None:
    # bfloat16 as harness/arrays.py saves it: the top 16 bits of float32
    bits = np.array([0x3F80, 0x3F81, 0x0001, 0x8001], np.uint16)  # 1.0, 1.0+1ulp, smallest subnormal, its negative
    v = A.decode(bits, "bfloat16")
    assert N.raw_bits(v, "bfloat16").tolist() == bits.tolist()
    assert N.ulp_distance(v[[1, 2]], v[[0, 3]], "bfloat16").tolist() == [1.0, 2.0]
    # e4m3: 0x38 = 1.0, 0x39 = 1.125, 0x01 = 2^-9 (subnormal), 0x00 = 0: one step each, not float32 steps
    e4 = np.array([0x38, 0x39, 0x01, 0x00, 0x7E, 0xB8], np.uint8)
    v4 = A.decode(e4, "float8_e4m3fn")
    assert N.raw_bits(v4, "float8_e4m3fn").tolist() == e4.tolist()
    assert N.ulp_distance(v4[[1, 2]], v4[[0, 3]], "float8_e4m3fn").tolist() == [1.0, 1.0]
    # e5m2: the top byte of a float16; 0x3C = 1.0, 0x3D = 1.25, 0x01 = 2^-16
    e5 = np.array([0x3C, 0x3D, 0x01, 0x00], np.uint8)
    v5 = A.decode(e5, "float8_e5m2")
    assert N.raw_bits(v5, "float8_e5m2").tolist() == e5.tolist()
    assert N.ulp_distance(v5[[1, 2]], v5[[0, 3]], "float8_e5m2").tolist() == [1.0, 1.0]


def test_histogram_buckets_and_specials_counted_apart() -> None:
    ref = np.ones(10, np.float32)
    out = ref.copy()
    steps = [0, 1, 3, 10, 100, 1000]
    for i, k in enumerate(steps):
        out[i] = (ref[i : i + 1].view(np.int32) + k).view(np.float32)[0]
    out[6], out[7], out[8] = np.nan, np.inf, -np.inf
    r = cmp(out, ref, tol={"atol": 0, "rtol": 0})
    assert r.ulp_hist == (1 + 1, 1, 1, 1, 1, 1, 3)  # element 9 is exact too
    assert (r.nan_count, r.posinf_count, r.neginf_count, r.inf_count) == (1, 1, 1, 2)
    # the reference's own NaN/Inf reproduced: equal; lost: counted
    ref2 = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    assert cmp(ref2.copy(), ref2).ok
    r = cmp(np.array([1.0, np.inf, 0.0, 1.0], np.float32), ref2)
    assert (r.ok, r.lost_count, r.nan_count) == (False, 2, 0)


def test_integers_and_bool_are_exact_whatever_the_tolerance() -> None:
    ref = np.arange(10, dtype=np.int32)
    out = ref.copy()
    out[3] += 1
    r = C.compare_arrays(out, ref, "int32", "int32", {"atol": 5, "rtol": 1})
    assert (r.ok, r.mismatched, r.atol, r.first_bad_at) == (False, 1, None, ((3,),))
    assert C.tolerance_for("int32", C.with_override(None, 1.0, 1.0)) is None
    b = np.array([True, False, True])
    assert not C.compare_arrays(~b, b, "bool", "bool", None).ok


def test_shape_and_dtype_mismatches_are_reported_as_such() -> None:
    ref = np.arange(6, dtype=np.float32).reshape(2, 3)
    r = cmp(ref.T.copy(), ref)
    assert r.shape_mismatch and r.transposed and "transposed" in (r.problem or "")
    r = C.compare_arrays(ref.astype(np.float16), ref, "float16", F32, None)
    assert r.dtype_mismatch and not r.ok


# --- tolerances ------------------------------------------------------------------------------------


def test_tolerance_defaults_overrides_and_command_line() -> None:
    assert C.tolerance_for("float16", None) == C.DEFAULT_TOLERANCE["float16"]
    assert C.tolerance_for("float16", 0.5) == (0.5, 0.5)
    assert C.tolerance_for("float16", {"atol": 0.5}) == (0.5, C.DEFAULT_TOLERANCE["float16"][1])
    per = {"torch.bfloat16": {"rtol": 0.1}, "fp16": [0.2, 0.3]}
    assert C.tolerance_for("bfloat16", per) == (C.DEFAULT_TOLERANCE["bfloat16"][0], 0.1)
    assert C.tolerance_for("float16", per) == (0.2, 0.3)
    assert C.tolerance_for(F32, per) == C.DEFAULT_TOLERANCE[F32]  # not named: the default
    # --atol/--rtol over TOLERANCE; only what is given
    assert C.tolerance_for("float16", C.with_override(per, None, 0.01)) == (0.2, 0.01)
    assert C.tolerance_for(F32, C.with_override(None, 1e-3, 1e-3)) == (1e-3, 1e-3)
    assert C.with_override(per, None, None) is per


# --- where the errors are --------------------------------------------------------------------------


def test_tail_names_the_block_sizes_that_explain_it() -> None:
    ref = np.arange(1, 1001, dtype=np.float32)
    out = ref.copy()
    out[896:] += 3  # past the last full block of 128 (7 * 128 = 896)
    r = cmp(out, ref)
    assert (r.where, r.tail_block, r.tail_blocks, r.tail_axis) == ("tail", 128, (128,), None)
    # columns 192..199 of a 64 x 200 output: a tail along axis 1, explained by blocks 16, 32, 64
    ref2 = np.ones((64, 200), np.float32)
    out2 = ref2.copy()
    out2[:, 192:] = 5
    r = cmp(out2, ref2)
    assert (r.where, r.tail_axis, r.tail_blocks, r.tail_block, r.bad_cols) == ("tail", 1, (16, 32, 64), 64, 8)
    # a few late errors are not a tail
    out3 = ref.copy()
    out3[[520, 700]] = 0
    assert cmp(out3, ref).where == "scattered"


def test_a_run_of_errors_that_ends_the_output_is_a_tail_only_up_to_half_of_it() -> None:
    # a batched matmul whose B advances by A's batch stride: batch 0 right, batches 1..3 wrong in every element
    bad = np.zeros((4, 32, 64), bool)
    bad[1:] = True
    assert N.locate(bad)["where"] == "rows"
    # the same run over the last quarter is a tail
    bad = np.zeros((4, 32, 64), bool)
    bad[3:] = True
    assert N.locate(bad)["where"] == "tail"


def test_rows_columns_periodic_head_everywhere() -> None:
    ref = np.ones((8, 64), np.float32)
    rows = ref.copy()
    rows[[1, 5]] = 2
    r = cmp(rows, ref)
    assert (r.where, r.bad_rows) == ("rows", 2)
    cols = ref.copy()
    cols[:, [3, 40]] = 2
    r = cmp(cols, ref)
    assert (r.where, r.bad_cols) == ("columns", 2)
    per = ref.reshape(-1).copy()
    per[15::16] = 2  # the last lane of every 16-wide tile
    r = cmp(per, ref.reshape(-1))
    assert (r.where, r.period) == ("periodic", 16)
    head = ref.reshape(-1).copy()
    head[:10] = 0
    assert cmp(head, ref.reshape(-1)).where == "head"
    assert cmp(ref + 1, ref).where == "everywhere"


def test_transposed_and_shifted_outputs() -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((32, 32)).astype(np.float32)
    assert cmp(m.T.copy(), m).transposed
    sym = m + m.T
    assert not cmp(sym + 1, sym).transposed  # a symmetric reference cannot tell
    rect = rng.standard_normal((16, 48)).astype(np.float32)
    assert cmp(rect.T.copy().reshape(16, 48), rect).transposed  # the transposed layout in the right-shaped buffer
    v = rng.standard_normal(1000).astype(np.float32)
    r = cmp(np.roll(v, 1), v)
    assert (r.shift, r.shift_axis, r.transposed) == (1, 0, False)
    r = cmp(np.roll(m, -2, axis=0), m)
    assert (r.shift, r.shift_axis) == (-2, 0)
    assert cmp(v * 2, v).shift is None


def test_sentinel_and_zero_regions() -> None:
    ref = np.ones(100, np.float32)
    out = ref.copy()
    out[90:] = np.array([N.SENTINEL_BITS["float32"]], np.uint32).view(np.float32)[0]
    r = cmp(out, ref)
    assert (r.sentinel_count, r.nan_count, r.where) == (10, 10, "tail")
    h = np.ones(50, np.float16)
    ho = h.copy()
    ho[:5] = np.array([N.SENTINEL_BITS["float16"]], np.uint16).view(np.float16)[0]
    assert cmp(ho, h, "float16").sentinel_count == 5
    bf = A.decode(np.full(8, 0x3F80, np.uint16), "bfloat16")  # 1.0
    bo = A.decode(np.array([0x3F80] * 6 + [N.SENTINEL_BITS["bfloat16"]] * 2, np.uint16), "bfloat16")
    assert cmp(bo, bf, "bfloat16").sentinel_count == 2
    i = np.arange(8, dtype=np.int32)
    io = i.copy()
    io[6:] = np.array([N.SENTINEL_BITS["int32"]], np.uint32).view(np.int32)[0]
    assert C.compare_arrays(io, i, "int32", "int32", None).sentinel_count == 2
    z = ref.copy()
    z[80:] = 0
    assert cmp(z, ref).zero_count == 20


def test_sentinel_bits_agree_with_the_harness() -> None:
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # harness/ is not installed, it is run by path
    from harness import sentinel

    for dt, (view, bits) in sentinel.SENTINELS.items():
        name = str(dt).removeprefix("torch.")
        width = torch.empty(0, dtype=view).element_size() * 8
        assert N.SENTINEL_BITS[name] == bits % (1 << width), name


def test_first_bad_indices_are_multidimensional_with_got_and_expected() -> None:
    ref = np.zeros((3, 4), np.float32)
    out = ref.copy()
    out[1, 2] = 7
    out[2, 0] = np.nan
    r = cmp(out, ref)
    assert r.first_bad_at == ((1, 2), (2, 0))
    assert r.first_bad_got == (7.0, "nan") and r.first_bad_expected == (0.0, 0.0)
    assert r.first_bad == 6 and r.fraction == 2 / 12


# --- precision ---------------------------------------------------------------------------------------


def test_precision_bits_and_growth_along_the_last_axis() -> None:
    rng = np.random.default_rng(1)
    x = rng.random((16, 2048)).astype(np.float32)
    ref = np.cumsum(x.astype(np.float64), axis=1).astype(np.float32)
    acc = np.zeros(16, np.float16)
    out = np.empty_like(ref)
    for j in range(2048):  # a float16 running sum
        acc = (acc + x[:, j].astype(np.float16)).astype(np.float16)
        out[:, j] = acc
    r = cmp(out, ref)
    assert r.precision_bits is not None and r.precision_bits < 14  # of float32's 24
    assert r.growth_position is not None and r.growth_position >= R.GROWTH_POSITION_MIN
    good = cmp(np.cumsum(x, axis=1, dtype=np.float32), ref)
    assert good.ok and good.precision_bits is not None and good.precision_bits > 20


def _size(label: str, out: np.ndarray, ref: np.ndarray, inputs: int) -> C.SizeResult:
    leaf = cmp(out, ref)
    return C.SizeResult(label, leaf.ok, leaves=(leaf,), input_elems=inputs)


def test_numerics_facts_error_growth_across_sizes_and_expected_variation() -> None:
    rng = np.random.default_rng(2)
    sizes = []
    for k in (256, 4096):
        x = rng.random((32, k)).astype(np.float16)
        ref = x.astype(np.float32).sum(axis=1)
        acc = np.zeros(32, np.float16)
        for j in range(0, k, 64):
            acc = (acc + x[:, j : j + 64].astype(np.float32).sum(axis=1).astype(np.float16)).astype(np.float16)
        sizes.append(_size(f"cols={k}", acc.astype(np.float32), ref, x.size))
    f = R.numerics_facts(sizes)
    assert f is not None and f.mismatch and f.reduction_lens == (256, 4096)
    assert f.error_growth is not None and f.error_growth >= R.GROWTH_MIN and f.error_grows
    assert f.significand_bits == 24 and (f.precision_bits or 99) < 18
    # within tolerance: a pass with figures
    ok = [_size("n=8", np.float32([1, 2, 3]) * (1 + 1e-7), np.float32([1, 2, 3]), 3)]
    f = R.numerics_facts(ok)
    assert f is not None and not f.mismatch and f.expected_variation and (f.max_ulp or 0) >= 1
    exact = R.numerics_facts([_size("n=3", np.float32([1, 2, 3]), np.float32([1, 2, 3]), 3)])
    assert exact is not None and exact.exact and not exact.expected_variation
    assert R.numerics_facts([]) is None


def test_numerics_facts_nonfinite_computed_excludes_the_sentinel() -> None:
    ref = np.ones(100, np.float32)
    out = ref.copy()
    out[:3] = np.nan
    out[90:] = np.array([N.SENTINEL_BITS["float32"]], np.uint32).view(np.float32)[0]
    f = R.numerics_facts([C.SizeResult("n=100", False, leaves=(cmp(out, ref),))])
    assert f is not None and (f.nan_new, f.sentinel_elems, f.nonfinite_computed) == (13, 10, 3)
