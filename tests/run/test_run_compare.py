"""The parent's comparison and its reading of child files: figures, tolerances, and nothing unpickled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from diagnose.run import arrays as A
from diagnose.run import compare as C
from diagnose.run import ladder as L


def _entry(folder: Path, name: str, arr: np.ndarray, dtype: str) -> dict:
    np.save(folder / f"{name}.npy", arr, allow_pickle=False)
    return {"file": f"{name}.npy", "dtype": dtype, "shape": list(arr.shape), "nbytes": int(arr.nbytes)}


def test_summation_order_differences_pass_float32() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4096)).astype(np.float32)
    ref = x.sum(axis=1, dtype=np.float32)
    out = x.reshape(64, 64, 64).sum(axis=2, dtype=np.float32).sum(axis=1, dtype=np.float32)  # another order
    r = C.compare_arrays(out, ref, "float32", "float32", None)
    assert r.ok and r.max_ulp is not None and r.max_abs is not None and r.max_abs > 0


def test_where_the_errors_are() -> None:
    ref = np.zeros((4, 8), np.float32)
    tail = ref.copy()
    tail[3, 5:] = 1
    assert C.compare_arrays(tail, ref, "float32", "float32", None).where == "tail"
    rows = ref.copy()
    rows[1] = 1
    assert C.compare_arrays(rows, ref, "float32", "float32", None).where == "rows"
    assert C.compare_arrays(ref + 1, ref, "float32", "float32", None).where == "everywhere"


def test_shape_dtype_nan_inf_and_tolerance_override() -> None:
    a = np.ones(4, np.float32)
    assert C.compare_arrays(np.ones(5, np.float32), a, "float32", "float32", None).shape_mismatch
    assert C.compare_arrays(a.astype(np.float16), a, "float16", "float32", None).dtype_mismatch
    both_nan = np.array([np.nan, 1, np.inf, 2], np.float32)
    assert C.compare_arrays(both_nan, both_nan.copy(), "float32", "float32", None).ok
    r = C.compare_arrays(np.array([1, 1, -np.inf, 1], np.float32), a, "float32", "float32", None)
    assert (r.ok, r.inf_count) == (False, 1)
    off = a + 0.01
    assert not C.compare_arrays(off, a, "float32", "float32", None).ok
    assert C.compare_arrays(off, a, "float32", "float32", {"atol": 0.02, "rtol": 0}).ok
    assert C.compare_arrays(off, a, "float32", "float32", {"float32": {"atol": 0.02}}).ok


def test_bf16_and_fp8_bits_decode_exactly(tmp_path: Path) -> None:
    vals = np.array([1.0, -2.5, 0.15625, 2.0**127], np.float32)
    bf16_bits = (vals.view(np.uint32) >> 16).astype(np.uint16)  # exact for these values
    got = A.load(tmp_path, _entry(tmp_path, "b", bf16_bits, "bfloat16"))
    assert got.tolist() == vals.tolist()
    e4m3 = np.array([0x38, 0xB8, 0x7E, 0x01], np.uint8)  # 1.0, -1.0, 448, smallest subnormal
    got = A.load(tmp_path, _entry(tmp_path, "f", e4m3, "float8_e4m3fn"))
    assert got.tolist() == [1.0, -1.0, 448.0, 2.0**-9]
    r = C.compare_arrays(A.decode(bf16_bits, "bfloat16"), A.decode(bf16_bits, "bfloat16"), "bfloat16", "bfloat16", None)
    assert r.ok and r.max_ulp == 0


def test_object_arrays_and_lies_are_refused_before_loading(tmp_path: Path) -> None:
    # a pickled object array: numpy would run its reduce on load; we must refuse it from the header
    obj = np.array([{"a": 1}], dtype=object)
    np.save(tmp_path / "o.npy", obj, allow_pickle=True)
    with pytest.raises(A.ResultInvalid):
        A.load(tmp_path, {"file": "o.npy", "dtype": "float32", "shape": [1], "nbytes": 4})
    e = _entry(tmp_path, "x", np.zeros(4, np.float32), "float32")
    with pytest.raises(A.ResultInvalid, match="manifest says"):
        A.load(tmp_path, {**e, "shape": [8], "nbytes": 32})
    with pytest.raises(A.ResultInvalid, match="bad file name"):
        A.load(tmp_path, {**e, "file": "../x.npy"})
    with pytest.raises(A.ResultInvalid, match="bytes"):
        A.load(tmp_path, {**e, "nbytes": 99})


def test_ladder_records_what_cannot_run_here() -> None:
    p = L.Planner(ladder="quick", gpu=True, sanitizer=None)
    assert p.next(L.Symptoms()).name == "plain"
    rung = p.next(L.Symptoms(failed=True, error=True))
    assert rung is not None and rung.name == "launch-blocking"
    assert rung.env == {"CUDA_LAUNCH_BLOCKING": "1", "PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
    assert p.next(L.Symptoms(failed=True, unwritten=True)) is None
    assert p.unavailable == ["initcheck: compute-sanitizer not found (PATH, or nvidia-cuda-sanitizer-api >= 13.5.25)"]
    assert L.Planner(ladder="none", gpu=True, sanitizer="cs").next(L.Symptoms(failed=True)).name == "plain"
    n = L.Planner(ladder="none", gpu=True, sanitizer="cs")
    n.next(L.Symptoms())
    assert n.next(L.Symptoms(failed=True)) is None
    assert L.sanitizer_argv("cs", "memcheck", "/r/s.log")[:7] == [
        "cs", "--tool", "memcheck", "--error-exitcode", "86", "--log-file", "/r/s.log",
    ]  # fmt: skip


def test_old_sanitizer_wheel_is_refused() -> None:
    snap = {"software": {"compute_sanitizer": {"value": {"path": "/x/compute-sanitizer", "wheel": "13.0.85"}}}}
    path, why = L.find_sanitizer(snap)
    assert path is None and "13.5.25" in (why or "")
    snap["software"]["compute_sanitizer"]["value"]["wheel"] = "13.5.25"
    assert L.find_sanitizer(snap)[0] == "/x/compute-sanitizer"


def test_values_in_the_wrong_places_are_told_from_wrong_values() -> None:
    ref = np.arange(16, dtype=np.float32).reshape(4, 4)
    moved = C.compare_arrays(ref.T.copy(), ref, "float32", "float32", None)  # transposed store
    assert (moved.ok, moved.permuted, moved.exact) == (False, True, 4)  # the diagonal stays right
    off = C.compare_arrays(ref * 3 + 1, ref, "float32", "float32", None)
    assert (off.permuted, off.exact) == (False, 0)
