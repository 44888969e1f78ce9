"""Corpus kernels (corpus/kernels/, Triton under the interpreter) through `kdiag run`, real children, no GPU.

Each gets the verdict, category and failure mode its label in corpus/kernels/labels.yaml names, and
the numerics facts that carry the diagnosis.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

# real children: each imports torch (~1-2 s) and runs Triton interpreted (seconds to tens of seconds a
# run): the session's corpus_run (tests/conftest.py) runs a kernel once per set of options, and every
# test that asks for it, here or in the corpus label tests, reads that report

KERNELS = Path(__file__).resolve().parents[2] / "corpus" / "kernels"
LABELS = yaml.safe_load((KERNELS / "labels.yaml").read_text())


@pytest.fixture
def kdiag_run(corpus_run):
    """kdiag_run(path, *options) -> (exit code, report JSON); on CPU, probes off unless options ask for them."""

    def run(path: Path | str, *options: str) -> tuple[int, dict[str, Any]]:
        rest = list(options)
        probes = "none"  # the probe matrix is another test's subject; keep these quick
        if "--probes" in rest:
            i = rest.index("--probes")
            probes = rest[i + 1]
            del rest[i : i + 2]
        code, rep, _ = corpus_run(path, probes=probes, extra=tuple(rest))
        return code, rep

    return run


NUMERIC_KERNELS = [
    "fp16_accumulator.py",
    "transposed_store.py",
    "partial_grid.py",
    "softmax_overflow.py",
    "row_sum_f32.py",
    "fp16_fma.py",
]


@pytest.mark.parametrize("name", NUMERIC_KERNELS)
def test_corpus_kernel_gets_its_label(name: str, kdiag_run) -> None:
    code, rep = kdiag_run(KERNELS / name)
    want = LABELS[name]
    assert (rep["verdict"], rep["category"]) == (want["verdict"], want["category"]), rep["title"]
    if "failure_mode" in want:
        assert rep["failure_mode"] == want["failure_mode"], (rep["rule"], rep["title"])
    if "rule" in want:
        assert rep["rule"] == want["rule"]
    assert code == (0 if want["verdict"] == "pass" else 1)


def test_fp16_accumulator_error_grows_with_the_row_length(kdiag_run) -> None:
    _, rep = kdiag_run(KERNELS / "fp16_accumulator.py")
    n = rep["numerics"]
    assert n["dtype"] == "float32" and n["where"] == "everywhere"
    assert n["reduction_lens"] == [512, 8192] and n["error_grows"] and n["error_growth"] >= 2
    assert n["precision_bits"] < 14 and n["max_rel"] < 0.01 and n["nonfinite_computed"] == 0
    small, large = (s["outputs"][0] for s in rep["sizes"])
    assert large["median_rel"] > 2 * small["median_rel"]


def test_transposed_partial_grid_and_overflow_facts(kdiag_run) -> None:
    _, rep = kdiag_run(KERNELS / "transposed_store.py")
    assert rep["numerics"]["transposed"] and rep["numerics"]["sentinel_elems"] == 0
    _, rep = kdiag_run(KERNELS / "partial_grid.py")
    n = rep["numerics"]
    assert (n["where"], n["tail_axis"], n["tail_block"], n["bad_cols"]) == ("tail", 1, 64, 8)
    assert n["sentinel_elems"] == n["mismatched"] == 64 * 8 and n["nonfinite_computed"] == 0
    assert rep["sizes"][0]["ok"] and not rep["sizes"][1]["ok"]  # n=256 (a multiple of 64) hides it
    _, rep = kdiag_run(KERNELS / "softmax_overflow.py")
    n = rep["numerics"]
    assert n["nan_new"] > 0 and n["nonfinite_computed"] == n["nan_new"] and n["sentinel_elems"] == 0
    bad = rep["sizes"][1]["outputs"][0]
    assert bad["first_bad_got"][0] == "nan" and len(bad["first_bad_at"][0]) == 2


def test_correct_kernels_pass_as_expected_variation(kdiag_run) -> None:
    for name, dtype in (("row_sum_f32.py", "float32"), ("fp16_fma.py", "float16")):
        _, rep = kdiag_run(KERNELS / name)
        assert rep["verdict"] == "pass" and rep["category"] == "none"
        assert rep["title"].startswith("expected variation"), rep["title"]
        n = rep["numerics"]
        assert n["expected_variation"] and not n["mismatch"] and n["dtype"] == dtype
        assert 0 < n["max_ulp"] <= 4 and n["max_abs"] > 0
        hist = n["ulp_hist"]
        assert hist["nan/inf"] == 0 and hist[">256"] == 0 and hist["17-256"] == 0


def test_command_line_tolerance_overrides(kdiag_run) -> None:
    # the float16 accumulator is within 1% of the float32 sums: with --rtol 0.01 that is a pass
    code, rep = kdiag_run(KERNELS / "fp16_accumulator.py", "--rtol", "0.01")
    assert (code, rep["verdict"]) == (0, "pass") and rep["title"].startswith("expected variation")
    assert rep["sizes"][0]["outputs"][0]["rtol"] == 0.01
    # and a tighter one fails the float16 kernel that passes by default
    code, rep = kdiag_run(KERNELS / "fp16_fma.py", "--atol", "0", "--rtol", "0")
    assert code == 1 and rep["verdict"] == "fail"


STATEFUL = """
    import torch

    SIZES = [dict(n=256)]
    _calls = [0]

    def make_inputs(device, seed=0, n=256):
        return (torch.arange(n, dtype=torch.float32, device=device),)

    def kernel(x):
        _calls[0] += 1                   # state carried from call to call: a second identical run differs
        return x + _calls[0]

    def reference(x):
        return x + 0.5
"""


def test_identical_runs_that_differ_reach_the_numerics_facts(tmp_path: Path, kdiag_run) -> None:
    path = tmp_path / "stateful.py"
    path.write_text(textwrap.dedent(STATEFUL).lstrip())
    _, rep = kdiag_run(path, "--probes", "quick")  # probes on: the kernel child runs each size twice on CPU too
    assert rep["verdict"] == "fail" and rep["numerics"]["nondeterministic"]
