"""Failures printed without an error keyword (diagnose/comparisons.py, diagnose/failure_lines.py): values a
check prints that differ, a result on zeros that is not zero, a load or an initialisation said not to work;
and what kdiag answers for them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.comparisons import (
    block_comparison_lines,
    comparison_lines,
    over_tolerance_lines,
    values_differ,
    zero_input_results,
)
from diagnose.failure import has_failure
from diagnose.failure_lines import failure_lines, is_failure_line
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.report import Report
from diagnose.rules import default_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def case(path: str, case_id: str) -> str:
    for c in yaml.safe_load((CORPUS / path).read_text()):
        if c["id"] == case_id:
            return str(c["log"])
    raise KeyError(case_id)


# Single lines in the formats the tools print them (the printf of the file cited), one family each.
PRINTED_FAILURES = [
    # llm.c dev/cuda/common.h validate_result: "Mismatch of %s at %d: CPU_ref: %f vs GPU: %f"
    # (corpus/holdout7 llmc-matmul-bias-kernel1-non-pow2-block, karpathy/llm.c#439)
    "Mismatch of dbias at 0: CPU_ref: 1.125032 vs GPU: 3.562500",
    # the same two labelled values without the verb: the value comparison alone decides
    "CPU_ref: 1.125032 vs GPU: 3.562500",
    # polybench-style GPU ports: printf("Mismatch at (%d, %d): Host = %f, Device = %f\n", ...)
    "Mismatch at (3, 7): Host = 0.250000, Device = 0.000000",
    "Host = 0.250000, Device = 0.000000",
    # cuda-samples Samples/0_Introduction/vectorAdd/vectorAdd.cu: "Result verification failed at element %d!\n"
    "Result verification failed at element 3!",
    # CUTLASS profiler: a report's disposition, Disposition_enumerants' pretty names (tools/profiler/src/enumerated_types.cpp)
    "        Disposition: Incorrect",
    "        Disposition: Failed",
    # nvtop src/extract_gpuinfo_nvidia.c: "Impossible to initialize nvidia nvml : %s\n" with nvmlErrorString
    # (nvidia-ml-py 13.615.71: "Driver Not Loaded"), and the empty reason of corpus/holdout7 nvtop-docker-stub-libnvidia-ml
    "Impossible to initialize nvidia nvml : Driver Not Loaded",
    "Impossible to initialize nvidia nvml :",
    # NVIDIA/go-nvlib pkg/nvlib/info HasNvml: fmt.Sprintf("could not load NVML library: %v", err); nvidia-docker 1.x
    # src/nvml/nvml.go Init: errors.New("could not load NVML library") (corpus/holdout7 nvidia-docker-plugin-nvml-not-in-ldcache)
    "could not load NVML library: libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
    "nvidia-docker-plugin | 2017/09/18 16:29:20 Error: could not load NVML library",
    # a user's paraphrase naming the library (corpus/holdout7 tf-libcudnn-so8-not-installed, tensorflow/tensorflow#46310)
    "Dynamic library libcudnn.so.8 and libcusolver.so.10 dont load",
    # a measured difference beside the tolerance it had to meet
    "max abs diff: 0.51 (tol 1e-3)",
    "rel err = 3e-2 exceeds rtol = 1e-3",
]

PRINTED_HEALTHY = [
    # llm.c's passing output: the first values side by side, then its verdict (the same corpus case)
    "1.125032 1.054688",
    "All results match for block_size=512.",
    "CPU_ref: 1.125032 vs GPU: 1.125000",  # equal within the printed precision
    "Host = 0.250000, Device = 0.250000",
    "        Disposition: Passed",
    # measurements and versions that carry the same labels
    "CPU time: 12.1 ms, GPU time: 1.3 ms",
    "CPU: 4.00 GB GPU: 16.00 GB",
    "torch: 2.1, cuda: 12.1",
    "numpy: 1.26.4 cupy: 13.0.0",
    "host: 0 device: 1",
    "max abs diff: 0.0001 (tol 1e-3)",
    "Loading checkpoint shards: 100%",
    "libcuda.so loaded from /usr/lib/x86_64-linux-gnu",
    # valgrind --help (corpus/healthy/captured-help.yaml): an option that mentions matching
    "    --show-mismatched-frees=no|yes   show frees that don't match the allocator? [yes]",
]


@pytest.mark.parametrize("line", PRINTED_FAILURES)
def test_printed_failures_are_failure_lines(line: str) -> None:
    assert is_failure_line(line), line
    assert failure_lines(line + "\n") == [(1, line.strip())]
    assert has_failure(collect(line + "\n"))


@pytest.mark.parametrize("line", PRINTED_HEALTHY)
def test_printed_look_alikes_stay_healthy(line: str) -> None:
    assert not is_failure_line(line), line
    assert not has_failure(collect(line + "\n")), line


def test_values_are_compared_element_by_element_around_an_elision() -> None:
    assert values_differ("[0, 0, ..., 0, 0]", "[0, 0, ..., 0, 1]")
    assert not values_differ("[1.0, 2.0, ..., 3.0]", "[1.001, 2.0, ..., 3.0]")  # within 1%
    assert values_differ("[1, 2, 3]", "[1, 2]")  # two whole arrays of different lengths
    assert not values_differ("nan", "nan") and values_differ("0.5", "nan")


def test_a_comparison_printed_over_two_lines_is_found_at_its_first() -> None:
    # corpus/holdout7 cupy-max-len-seq-tap-reads-past-register (cupy/cupy#10163): SciPy's result over CuPy's
    text = case("holdout7/issues.yaml", "cupy-max-len-seq-tap-reads-past-register")
    assert [n for n, _ in comparison_lines(text)] == [1]
    # the same shape with other labels: the reference under "expected", the output under "out"
    assert [n for n, _ in comparison_lines("expected = [0. 1. 2.]\n     out = [0. 1. 2.]\n")] == []
    assert [n for n, _ in comparison_lines("expected = [0. 1. 2.]\n     out = [0. 1. 0.]\n")] == [1]


def test_accelerate_backends_printed_one_under_the_other() -> None:
    # Accelerate shows an array as `Array (<shape>) [<elements>]` (Data/Array/Accelerate/Array/Sugar.hs) and its
    # reference backend is the Interpreter; an integer result is exact, so 129 against 130 differs
    # (corpus/holdout24 h24a-accelerate-fold-divergent-syncthreads, AccelerateHS/accelerate#123)
    text = case("holdout24/issues.yaml", "h24a-accelerate-fold-divergent-syncthreads")
    assert [n for n, _ in comparison_lines(text)] == [2]
    r = answer(text)
    assert r.status == "unknown" and r.to_dict()["failure_kind"] == "wrong-result"
    same = "Interpreter: Array (Z :. 3) [1,2,3]\nCUDA       : Array (Z :. 3) [1,2,3]\n"
    assert comparison_lines(same) == [] and not has_failure(collect(same))
    # whole-number arrays are compared exactly, arrays of floats within the tolerance
    assert values_differ("[129]", "[130]") and values_differ("tensor([1, 2])", "tensor([1, 3])")
    assert not values_differ("[129.0]", "[130.0]")
    # a version beside the interpreter's name is no result
    assert not has_failure(collect("Python interpreter: 3.11.4\nCUDA: 12.1\n"))


def test_labelled_blocks_that_differ() -> None:
    # corpus/holdout5 triton-atomic-add-return-broadcast-wrong: "Result:" and "Expected:" over two tensors
    text = case("holdout5/issues.yaml", "triton-atomic-add-return-broadcast-wrong")
    assert block_comparison_lines(text) == [(1, "Result:")]
    same = "Output:\narray([[1, 2],\n       [3, 4]])\n\nReference:\narray([[1, 2],\n       [3, 4]])\n"
    assert block_comparison_lines(same) == []
    assert block_comparison_lines(same.replace("[3, 4]])\n\nRef", "[3, 5]])\n\nRef")) == [(1, "Output:")]


def test_a_result_on_zeros_that_is_not_zero() -> None:
    # corpus/holdout7 cupy-concatenate-int-index-over-2-31 (cupy/cupy#893): the call states 2**31+1 elements
    text = case("holdout7/issues.yaml", "cupy-concatenate-int-index-over-2-31")
    assert zero_input_results(text) == [(5, "array([0, 0, 0, ..., 0, 0, 1], dtype=int8)", 2**31 + 1, 4)]
    # corpus/holdout5 torch-cumsum-uint32-product-overflow: the result printed after the call and a colon
    text = case("holdout5/issues.yaml", "torch-cumsum-uint32-product-overflow")
    assert [(n, size) for n, _, size, _ in zero_input_results(text)] == [(1, None)]
    # torch's REPL repr of the same kind of call (torch 2.x), a method on the zeros
    assert zero_input_results(">>> torch.zeros(8, device='cuda').cumsum(0)\ntensor([0., 0., 0., 0., 0., 0., 0., 1.])")
    # zeros in, zeros out; or an op that makes other values of zeros (an addition, ones)
    assert zero_input_results(">>> cp.concatenate([cp.zeros((4,), dtype='b')])\narray([0, 0, 0, 0], dtype=int8)") == []
    assert zero_input_results(">>> cp.cumsum(cp.zeros(4) + 1)\narray([1., 2., 3., 4.])") == []
    assert zero_input_results(">>> cp.concatenate([cp.ones((2**31,), dtype='b')])\narray([1, 1, ..., 1])") == []
    # corpus/holdout5 cupy-cumsum-int32-scan-over-2e31: the input is set after it was made, so it is not all zeros
    assert zero_input_results(case("holdout5/issues.yaml", "cupy-cumsum-int32-scan-over-2e31")) == []


def test_over_tolerance_needs_the_difference_above_the_printed_bound() -> None:
    assert over_tolerance_lines("max_diff=0.3 > atol=0.01")
    assert not over_tolerance_lines("max_diff=0.003 atol=0.01")


def test_bad_input_never_crashes() -> None:
    for text in ("", ":" * 5000, "cpu=[" * 1000, ">>> zeros(" * 500 + "\n[1" * 100, "Result:\n[" + "1," * 5000):
        comparison_lines(text)
        block_comparison_lines(text)
        zero_input_results(text)
        over_tolerance_lines(text)
        failure_lines(text)


# --- what kdiag answers ---------------------------------------------------------------------------------


MATCHER = Matcher(default_rules())


def answer(text: str) -> Report:
    return classify_record(InputRecord(id="t", text=text), MATCHER)


@pytest.mark.parametrize(
    ("path", "case_id", "category", "failure_mode", "rule"),
    [
        ("holdout7/issues.yaml", "nvtop-docker-stub-libnvidia-ml", "environment", "library-missing", "nvml-stub-library-loaded"),
        ("holdout7/issues.yaml", "tf-libcudnn-so8-not-installed", "environment", "library-missing", "shared-library-not-loaded"),
        ("holdout7/issues.yaml", "nvidia-docker-plugin-nvml-not-in-ldcache", "environment", "nvml-library-not-found", "nvml-library-not-found"),
        # a library op's wrong value past 2^31 elements: the library's 32-bit indexing or a size past the caller's
        # assumption (the rule's calibrated confidence sits at the abstention threshold: see the test below)
        ("holdout5/issues.yaml", "torch-cumsum-uint32-product-overflow", "kernel-logic", "wrong-result", "numerics-mismatch"),
    ],
)  # fmt: skip
def test_printed_failures_are_diagnosed(path: str, case_id: str, category: str, failure_mode: str, rule: str) -> None:
    r = answer(case(path, case_id))
    assert (r.category, r.failure_mode, r.diagnosis.rule if r.diagnosis else None) == (category, failure_mode, rule)


def test_a_library_op_s_wrong_value_past_int32_is_read_as_its_index_range() -> None:
    # corpus/holdout7 cupy-concatenate-int-index-over-2-31 (cupy/cupy#893): labelled runtime-assumption; the rule's
    # confidence, measured on the labelled corpus, is at the threshold (0.499 before the thirty-eighth set's
    # first answers joined the calibration, 0.5 after), so it answers or abstains naming the same reading
    r = answer(case("holdout7/issues.yaml", "cupy-concatenate-int-index-over-2-31"))
    assert r.diagnosis is not None and r.diagnosis.rule == "numerics-wrong-value-past-int32"
    assert (r.category, r.failure_mode) in {("runtime-assumption", "int32-index-overflow"), ("unknown", "ambiguous")}
    assert 0.4 <= r.diagnosis.confidence <= 0.6


def test_a_wrong_value_on_a_small_input_is_no_index_overflow() -> None:
    r = answer(">>> cp.concatenate([cp.zeros((1024,), dtype='b')])\narray([0, 0, 0, ..., 0, 0, 1], dtype=int8)\n")
    assert (r.category, r.failure_mode) == ("kernel-logic", "wrong-result")


@pytest.mark.parametrize(
    "case_id", ["llmc-matmul-bias-kernel1-non-pow2-block", "cupy-max-len-seq-tap-reads-past-register"]
)
def test_a_printed_mismatch_alone_is_an_abstention_with_the_deciding_check(case_id: str) -> None:
    r = answer(case("holdout7/issues.yaml", case_id))
    assert r.status == "unknown"
    assert r.failure_seen
    out = r.to_dict()
    assert out["failure_kind"] == "wrong-result"
    modes = [(c["category"], c.get("failure_mode")) for c in out["candidates"]]
    assert modes[:2] == [("kernel-logic", "wrong-result"), ("kernel-logic", "oob-global-read")]
    assert "compute-sanitizer --tool memcheck" in (out["next_check"] or "")
