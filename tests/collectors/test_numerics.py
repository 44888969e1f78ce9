"""diagnose.collectors.numerics over real assert_close / assert_allclose messages (tests/fixtures/numerics)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.collectors.numerics import parse

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "numerics"


def load(stem: str) -> str:
    return (FIX / f"{stem}.log").read_text(encoding="utf-8")


def test_every_fixture_has_a_sidecar() -> None:
    for log in FIX.glob("*.log"):
        data = yaml.safe_load(log.with_name(log.stem + ".source.yaml").read_text())
        assert {"captured", "origin"} & set(data), log.name


def test_torch_values() -> None:
    f = parse(load("torch_close_values"))
    assert f is not None and f.mismatch
    assert (f.mismatched, f.total, f.fraction) == (4, 1000, 0.004)
    assert f.max_abs == 0.001007080078125
    assert f.max_rel == 0.0003331981133669615
    assert not (f.nan_in_output or f.shape_mismatch or f.dtype_mismatch)
    assert f.lines == (1, 3, 4, 5)


def test_torch_2d_index() -> None:
    f = parse(load("torch_close_2d"))
    assert f is not None and (f.mismatched, f.total, f.max_abs) == (1, 4096, 1.5)


def test_torch_nan() -> None:
    f = parse(load("torch_close_nan"))
    assert f is not None and f.nan_in_output
    assert f.max_abs is None  # the only figure printed was nan
    assert (f.mismatched, f.total) == (1, 3)


@pytest.mark.parametrize(
    ("stem", "shape", "dtype"),
    [("torch_close_shape", True, False), ("torch_close_dtype", False, True), ("numpy_allclose_shape", True, False)],
)
def test_shape_and_dtype(stem: str, shape: bool, dtype: bool) -> None:
    f = parse(load(stem))
    assert f is not None and f.mismatch
    assert (f.shape_mismatch, f.dtype_mismatch) == (shape, dtype)


def test_numpy_2() -> None:
    f = parse(load("numpy_allclose"))
    assert f is not None and f.mismatch
    assert (f.mismatched, f.total) == (5, 1000)
    assert (f.max_abs, f.max_rel) == (0.001, 0.00033322)


def test_numpy_nan_location() -> None:
    f = parse(load("numpy_allclose_nan"))
    assert f is not None and f.nan_in_output and f.mismatch


def test_numpy_1_wording() -> None:
    # numpy 1.x printed "Max absolute difference: X" (numpy/testing/_private/utils.py, build_err_msg callers)
    f = parse(
        "Not equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Max absolute difference: 0.5\nMax relative difference: 0.25"
    )
    assert f is not None and (f.max_abs, f.max_rel, f.mismatched) == (0.5, 0.25, 1)


def test_kernelbench_metadata() -> None:
    # the shape of KernelBench's correctness metadata (eval.py: metadata["correctness_issue"] = "Output mismatch",
    # max_difference appended as f"{max_diff:.6f}"), as a results file stores it; constructed, not a captured run
    f = parse(
        '{"correctness_issue": "Output mismatch", "max_difference": ["0.031250", "0.062500"], '
        '"avg_difference": ["0.000122", "0.000244"]}'
    )
    assert f is not None and f.mismatch and f.max_abs == 0.0625 and not f.nan_in_output
    g = parse("Output shape mismatch: Expected torch.Size([16, 64]), got torch.Size([16, 32])")
    assert g is not None and g.shape_mismatch


@pytest.mark.parametrize("text", ["", "tests passed, max difference tiny", "shape: (4, 3)", "\x00" * 10])
def test_nothing(text: str) -> None:
    assert parse(text) is None


def test_llmc_validate_result_pairs() -> None:
    # karpathy/llm.c#428 (corpus/holdout25): validate_result's lines, the reference's value first
    text = (
        "Checking correctness...\ndweight:\n8.187102 4.125000\n"
        "Mismatch of dweight at 0: CPU_ref: 8.187102 vs GPU: 4.125000\n"
        "Mismatch of dweight at 1: CPU_ref: 90.587265 vs GPU: 104.000000\n"
    )
    f = parse(text)
    assert f is not None and f.mismatch and f.shown_pairs == 2 and f.passed_block_size is None
    # the same sweep passing at one block size first (llm.c's matmul_backward_bias, corpus/holdout7)
    swept = parse("All results match for block_size=512.\n\n" + text)
    assert swept is not None and swept.passed_block_size == 512
