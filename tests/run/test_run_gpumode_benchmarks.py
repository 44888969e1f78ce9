"""A GPU MODE task's benchmarks are part of its contract (a benchmark's stated shapes): kdiag adds the sizes the CPU
can run from them (diagnose.run.targets.benchmark_sizes) to the tests it runs."""

from __future__ import annotations

from pathlib import Path

from diagnose.run import targets
from diagnose.run.targets import benchmark_sizes, detect

CASES = Path(__file__).resolve().parents[2] / "corpus" / "gpumode" / "problems"


def test_a_parameter_past_every_test_is_run_at_the_benchmark_value_on_the_largest_test() -> None:
    tests = [{"rows": 64, "cols": 1000, "seed": 1}, {"rows": 13, "cols": 333, "seed": 2}]
    got = benchmark_sizes(tests, [{"rows": 1024, "cols": 4096, "seed": 9}])
    # rows 1024 costs 16 times the largest test: left to a GPU; cols 4096 costs 4 times
    assert got == ({"rows": 64, "cols": 4096, "seed": 9},)


def test_only_integer_parameters_past_every_test_count_and_the_sizes_are_bounded() -> None:
    tests = [{"n": 100, "scale": 1.0, "exact": True}, {"n": 300, "scale": 40.0, "exact": False}]
    assert benchmark_sizes(tests, [{"n": 200, "scale": 99.0, "exact": True}]) == ()  # 200 is not past 300
    many = benchmark_sizes([{"a": 2, "b": 2, "c": 2}], [{"a": 4, "b": 4, "c": 4}])
    assert len(many) == targets.BENCHMARK_SIZES and all(sum(v == 4 for v in s.values()) == 1 for s in many)


def test_a_problem_folder_runs_its_tests_then_the_benchmark_sizes() -> None:
    t = detect([str(CASES / "softmax_py" / "fixed_block_submission.py")])
    assert t.sizes is not None
    assert [(s["rows"], s["cols"]) for s in t.sizes] == [(64, 1000), (13, 333), (8, 512), (64, 4096)]
    # a benchmark far past its tests (vectoradd: 4096 elements against tests of 64 and 100) adds nothing
    assert [s["size"] for s in detect([str(CASES / "vectoradd_py")]).sizes or ()] == [64, 100]
