"""Accumulation precision from one declared size: the static look at the accumulator's type
(diagnose/run/accumulator.py), the reduction-length sweep (diagnose/run/accum_sweep.py) and the rules
that read them, end to end through `kdiag run` on corpus kernels (Triton interpreter, no GPU)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from diagnose import facts as F
from diagnose.run import accum_sweep as W
from diagnose.run import accumulator as AC
from diagnose.run.compare import LeafResult, SizeResult

ROOT = Path(__file__).resolve().parent.parent.parent
KERNELS = ROOT / "corpus" / "kernels"
KB = ROOT / "corpus" / "kernelbench"
GPUMODE = ROOT / "corpus" / "gpumode" / "problems"

# --- the static check ------------------------------------------------------------------------------

TRITON_HEAD = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _triton(body: str) -> list[AC.Accumulator]:
    return AC.triton_accumulators(TRITON_HEAD + textwrap.dedent(body))


def test_triton_half_accumulator_updated_in_a_loop_is_found_with_its_lines() -> None:
    found = _triton("""
        def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            acc = tl.zeros((BLOCK,), dtype=tl.bfloat16)
            for i in range(0, n, BLOCK):
                acc = acc + tl.load(x_ptr + i + tl.arange(0, BLOCK))
            tl.store(out_ptr, tl.sum(acc))
        """)
    assert [(a.dtype, a.var, a.line, a.update_line) for a in found] == [("bfloat16", "acc", 8, 10)]
    assert found[0].code == "acc = tl.zeros((BLOCK,), dtype=tl.bfloat16)"


def test_triton_dtype_given_by_position_is_read_too() -> None:
    found = _triton("""
        def k(x_ptr, n, BLOCK: tl.constexpr):
            s = tl.full((BLOCK,), 0.0, tl.float16)
            for i in range(0, n, BLOCK):
                s += tl.load(x_ptr + i)
        """)
    assert [(a.dtype, a.var) for a in found] == [("float16", "s")]


def test_triton_dot_with_a_half_out_dtype_in_a_loop_is_found() -> None:
    found = _triton("""
        def mm(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
            acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
            for k in range(0, K, BLOCK):
                a = tl.load(a_ptr + k)
                b = tl.load(b_ptr + k)
                acc = tl.dot(a, b, acc, out_dtype=tl.float16)
            tl.store(c_ptr, acc)
        """)
    assert [(a.dtype, a.var, a.line) for a in found] == [("float16", "acc", 12)]
    assert "out_dtype=float16" in found[0].how


@pytest.mark.parametrize(
    "body",
    [
        # float32 accumulator: right
        """
        def k(x_ptr, n, BLOCK: tl.constexpr):
            acc = tl.zeros((BLOCK,), dtype=tl.float32)
            for i in range(0, n, BLOCK):
                acc += tl.load(x_ptr + i).to(tl.float32)
        """,
        # float16 scratch never summed in a loop
        """
        def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
            tmp = tl.zeros((BLOCK,), dtype=tl.float16)
            tl.store(out_ptr, tmp + tl.load(x_ptr))
        """,
        # widened before the loop
        """
        def k(x_ptr, n, BLOCK: tl.constexpr):
            acc = tl.zeros((BLOCK,), dtype=tl.float16)
            acc = acc.to(tl.float32)
            for i in range(0, n, BLOCK):
                acc += tl.load(x_ptr + i)
        """,
    ],
    ids=["float32", "no-loop", "widened"],
)
def test_triton_accumulators_that_are_not_narrow_sums_are_not_found(body: str) -> None:
    assert _triton(body) == []


def test_a_plain_python_function_is_not_a_kernel() -> None:
    src = (
        "import torch\n\ndef f(x):\n    acc = torch.zeros(4, dtype=torch.float16)\n    for v in x:\n        acc += v\n"
    )
    assert AC.triton_accumulators(src) == []


CUDA_FLOAT = """
__global__ void k(const __half* x, float* out, int n) {
    float acc = 0.f;  // __half acc would lose the small terms
    for (int i = 0; i < n; ++i) acc += __half2float(x[i]);
    out[0] = acc;
}
"""


def test_cuda_half_and_bfloat16_accumulators_are_found_float_is_not() -> None:
    half = CUDA_FLOAT.replace("float acc = 0.f;", "half acc = __float2half(0.f);").replace(
        "acc += __half2float(x[i]);", "acc += x[i];"
    )
    bf16 = """
    __global__ void k(const __nv_bfloat16* x, float* out, int n) {
        __nv_bfloat16 sum = __float2bfloat16(0.f);
        int i = threadIdx.x;
        while (i < n) {
            sum = __hfma(x[i], x[i], sum);
            i += blockDim.x;
        }
        out[0] = __bfloat162float(sum);
    }
    """
    assert [(a.dtype, a.var, a.line, a.update_line) for a in AC.cuda_accumulators(half)] == [("float16", "acc", 3, 4)]
    assert [(a.dtype, a.var) for a in AC.cuda_accumulators(textwrap.dedent(bf16))] == [("bfloat16", "sum")]
    assert AC.cuda_accumulators(CUDA_FLOAT) == []  # the comment naming __half is not code


def test_a_float_sum_rounded_back_to_half_every_step_is_found_a_max_is_not() -> None:
    src = """
    __global__ void k(const __half* x, __half* out, int n) {
        __half acc = __float2half(0.f);
        __half top = x[0];
        for (int i = 0; i < n; ++i) {
            acc = __float2half(__half2float(acc) + __half2float(x[i]));
            top = __hmax(top, x[i]);
        }
        out[0] = acc;
        out[1] = top;
    }
    """
    assert [(a.var, a.line, a.update_line) for a in AC.cuda_accumulators(textwrap.dedent(src))] == [("acc", 3, 6)]


def test_a_half_declared_after_the_loop_or_updated_outside_one_is_not_found() -> None:
    src = """
    __global__ void k(const __half* x, __half* out, int n) {
        __half first = x[0];
        first += x[1];
        out[0] = first;
    }
    """
    assert AC.cuda_accumulators(textwrap.dedent(src)) == []


def test_scan_reads_load_inline_sources_at_their_lines_in_the_submission() -> None:
    found = AC.scan(KB / "cuda_half_accumulator" / "submission.py")
    assert [(a.lang, a.dtype, a.var, a.line, a.update_line) for a in found] == [("cuda", "float16", "acc", 17, 19)]
    text = (KB / "cuda_half_accumulator" / "submission.py").read_text().splitlines()
    assert "__half acc" in text[16] and "__hadd(acc" in text[18]


def test_scan_of_the_float32_twins_and_unreadable_files_finds_nothing(tmp_path: Path) -> None:
    for path in (KERNELS / "matvec_f32_accumulator.py", KB / "triton_f32_accumulator" / "submission.py",
                 GPUMODE / "matvec_py" / "submission.py"):  # fmt: skip
        assert AC.scan(path) == [], path
    bad = tmp_path / "broken.py"
    bad.write_bytes(b"def (:\n\xff\xfe")
    assert AC.scan(bad) == [] and AC.scan(tmp_path / "missing.py") == []


# --- the sweep's plan ------------------------------------------------------------------------------


def _leaf(shape: tuple[int, ...], median_rel: float = 1e-3) -> LeafResult:
    n = 1
    for d in shape:
        n *= d
    return LeafResult("out0", False, "float32", shape, n, n, median_rel=median_rel)


def _manifest(kind: str, size: dict, shapes: dict[str, list[int]], **extra: object) -> dict:
    tensors = {k: {"dtype": "float16", "shape": v} for k, v in shapes.items()}
    struct = {"tuple": [{"t": k} for k in shapes]}
    if kind == "kernelbench":
        struct = {"dict": {"init": {"list": []}, "args": {"list": [{"t": k} for k in shapes]}}}
    label = ",".join(f"{k}={v}" for k, v in size.items()) or "default"
    return {"kind": kind, "sizes": [{"label": label, "size": size, "structure": struct, "tensors": tensors}], **extra}


def test_the_reduction_parameter_is_the_size_in_the_inputs_and_in_no_output() -> None:
    m = _manifest("gpumode", {"m": 64, "k": 4096, "seed": 7}, {"a": [64, 4096], "x": [4096]})
    p = W.plan(m, [SizeResult("m=64,k=4096,seed=7", False, leaves=(_leaf((64,)),))])
    assert (p.param, p.value, p.why_not) == ("k", 4096, None)
    assert [e["size"] for e in p.entries(seed=3)] == [{"m": 64, "k": 256, "seed": 7}, {"m": 64, "k": 1024, "seed": 7}]


def test_kernelbench_constants_come_from_the_reference_as_the_run_fitted_them(tmp_path: Path) -> None:
    ref = tmp_path / "reference.py"
    ref.write_text("M = 64\nK = 8192 * 2\nscale = 0.5\n")
    m = _manifest("kernelbench", {}, {"in0": [64, 4096], "in1": [4096, 1]}, resized={"ran": {"K": 4096}})
    p = W.plan(m, [SizeResult("default", False, leaves=(_leaf((64, 1)),))], reference=ref)
    assert (p.param, p.value) == ("K", 4096)
    assert [e["size"] for e in p.entries(seed=0)] == [{"K": 256}, {"K": 1024}]  # the constant alone is rebound


def test_an_ambiguous_or_unidentifiable_reduction_is_said_not_guessed() -> None:
    two = _manifest("kernel-module", {"n": 512, "k": 1024}, {"a": [512, 1024], "b": [1024, 512]})
    p = W.plan(two, [SizeResult("n=512,k=1024", False, leaves=(_leaf(()),))])
    assert p.param is None and "several size parameters could be the reduction length (n, k)" in str(p.why_not)
    assert p.entries(seed=0) == []
    square = _manifest("kernel-module", {"n": 256}, {"a": [256, 256], "b": [256, 256]})
    p = W.plan(square, [SizeResult("n=256", False, leaves=(_leaf((256, 256)),))])
    assert p.param is None and "cannot be told from the shapes" in str(p.why_not)
    assert W.plan(square, [SizeResult("n=256", True)]).why_not == "no declared size failed with a comparable output"


def test_the_signature_is_small_errors_spread_over_most_elements_at_one_length() -> None:
    base = F.NumericsFacts(mismatch=True, mismatched=60, total=64, fraction=0.94, max_rel=0.05, median_rel=1e-3)
    assert W.looks_like_accumulation(base, F.RunFacts())
    assert not W.looks_like_accumulation(F.NumericsFacts(**{**base.__dict__, "median_rel": 0.3}), None)
    assert not W.looks_like_accumulation(F.NumericsFacts(**{**base.__dict__, "fraction": 0.05}), None)
    assert not W.looks_like_accumulation(F.NumericsFacts(**{**base.__dict__, "transposed": True}), None)
    assert not W.looks_like_accumulation(F.NumericsFacts(**{**base.__dict__, "error_growth": 3.0}), None)
    assert not W.looks_like_accumulation(base, F.RunFacts(oob_stores=4))


# --- end to end ------------------------------------------------------------------------------------


def _evidence(rep: dict) -> dict:
    return json.loads((Path(rep["run_dir"]) / "evidence.json").read_text())["evidence"]


@pytest.mark.slow
def test_one_declared_size_with_a_half_accumulator_is_accumulation_precision(corpus_run) -> None:
    # the same run as the corpus label test's (--probes none, --no-record): one run for both
    code, rep, err = corpus_run(KERNELS / "matvec_fp16_accumulator.py")
    assert rep is not None, err
    assert (code, rep["verdict"], rep["category"], rep["failure_mode"]) == (
        1, "fail", "kernel-logic", "wrong-accumulation-precision")  # fmt: skip
    ev = _evidence(rep)
    run, num = ev["run"], ev["numerics"]
    assert run["sizes_declared"] == ["m=64,k=4096"]  # one size: the growth comes from the sweep
    assert run["accum_sweep_param"] == "k" and run["accum_sweep_values"] == [256, 1024, 4096]
    rels = run["accum_sweep_median_rel"]
    assert rels[0] < rels[1] < rels[2]
    assert num["error_grows"] and num["error_growth"] >= 2.0
    assert (run["narrow_accumulator"], run["narrow_accumulator_line"]) == ("float16", 22)
    sweep = json.loads((Path(rep["run_dir"]) / "accum-sweep.json").read_text())
    assert [p["k"] for p in sweep["points"]] == [256, 1024] and all(p["problem"] is None for p in sweep["points"])
    assert any(n.startswith("accumulation sweep (k is the reduction length") for n in rep["notes"])


@pytest.mark.slow
def test_the_float32_twin_passes_with_no_accumulator_finding(corpus_run) -> None:
    code, rep, err = corpus_run(KERNELS / "matvec_f32_accumulator.py")
    assert rep is not None, err
    assert (code, rep["verdict"]) == (0, "pass"), rep["title"]
    run = _evidence(rep)["run"]
    assert run["narrow_accumulator"] is None and run["accum_sweep_param"] is None
    assert not (Path(rep["run_dir"]) / "accum-sweep.json").exists()


@pytest.mark.slow
def test_a_gpumode_problem_with_one_test_gets_the_sweep_and_its_checker_still_decides(kdiag_run, tmp_path) -> None:
    # the problem without its benchmarks, whose longer reduction kdiag would run as a second declared size
    problems = tmp_path / "problems"
    shutil.copytree(GPUMODE / "matvec_py", problems / "matvec_py")
    shutil.copy(GPUMODE / "utils.py", problems / "utils.py")
    task = problems / "matvec_py" / "task.yml"
    task.write_text(task.read_text().split("\nbenchmarks:")[0] + "\n")
    code, rep, err = kdiag_run(str(problems / "matvec_py" / "fp16_acc_submission.py"), "--probes", "none")
    assert rep is not None, err
    assert (code, rep["verdict"], rep["failure_mode"]) == (1, "fail", "wrong-accumulation-precision"), rep["title"]
    notes = " | ".join(rep["notes"])
    assert "check_implementation rejected m=64,k=4096,seed=4242" in notes
    run = _evidence(rep)["run"]
    assert run["accum_sweep_param"] == "k" and run["result_invalid"] is None  # values off, not an invalid result


@pytest.mark.slow
def test_ladder_none_skips_the_sweep_and_says_why(kdiag_run) -> None:
    code, rep, err = kdiag_run(str(KERNELS / "matvec_fp16_accumulator.py"), "--probes", "none", "--ladder", "none")
    assert rep is not None and code == 1, err
    run = _evidence(rep)["run"]
    assert run["accum_sweep_param"] is None and run["accum_sweep_skipped"].startswith("--ladder none")
    assert run["narrow_accumulator"] == "float16"  # the static check needs no re-run


@pytest.mark.slow
@pytest.mark.toolkit
def test_a_cuda_half_accumulator_that_cannot_run_is_no_result_with_the_candidate_listed(kb_run) -> None:
    code, rep, err = kb_run("cuda_half_accumulator")  # the KernelBench label test's run (nvcc on torch's headers)
    assert rep is not None, err
    assert (code, rep["verdict"], rep["category"]) == (4, "no-result", "environment"), rep["title"]
    static = [c for c in rep["checked"] if c.startswith("static check:")]
    assert len(static) == 1 and "float16 accumulator `acc` (line 17" in static[0] and "a candidate only" in static[0]
    run = _evidence(rep)["run"]
    assert (run["narrow_accumulator"], run["narrow_accumulator_line"]) == ("float16", 17)
    assert rep["failure_mode"] != "wrong-accumulation-precision"  # the source alone is never the verdict


@pytest.mark.slow
def test_when_the_reduction_cannot_be_told_the_source_and_the_signature_decide(kb_run) -> None:
    code, rep, err = kb_run("triton_square_matmul_fp16_acc")
    assert rep is not None, err
    assert (code, rep["rule"], rep["failure_mode"]) == (1, "numerics-run-narrow-accumulator",
                                                        "wrong-accumulation-precision")  # fmt: skip
    assert any("accumulation sweep not run: no size parameter" in n and "(N=256)" in n for n in rep["notes"])
    run = _evidence(rep)["run"]
    assert run["accum_sweep_param"] is None and "kdiag does not guess it" in run["accum_sweep_skipped"]
    assert (run["narrow_accumulator"], run["narrow_accumulator_line"]) == ("float16", 18)
