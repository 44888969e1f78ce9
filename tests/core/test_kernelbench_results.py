"""KernelBench result files and run directories (corpus/kernelbench-results/): the error names are
evidence (a CompilationError cut to its first line is still a compile failure), and a run directory's
generated kernels are the code that ran, never read as logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_records
from diagnose.inputs import kernelbench_run, read_inputs, read_path

CASES = Path(__file__).resolve().parent.parent.parent / "corpus" / "kernelbench-results"
LABELS = yaml.safe_load((CASES / "labels.yaml").read_text())


@pytest.mark.parametrize("run", sorted(LABELS))
def test_a_run_directory_reaches_every_label(run: str) -> None:
    labels = LABELS[run]
    assert kernelbench_run(CASES / run)
    reports = {r.id: r for r in classify_records(read_inputs([str(CASES / run)]))}
    assert set(reports) == set(labels)  # one record per sample: no kernel source classified as a log
    for rid, label in labels.items():
        r = reports[rid]
        if "status" in label:
            assert r.status == label["status"], (rid, r.status)
            continue
        assert r.diagnosis is not None, rid
        # a label's known_miss is what kdiag answers instead, and why: the test notices when that changes
        want = label.get("known_miss", label)
        assert (r.diagnosis.category, r.diagnosis.failure_mode) == (want["category"], want["failure_mode"]), rid
    first = next(iter(labels))  # its record names its kernel (an epoch, where the fork writes one, in between)
    problem, sample = (part.split("_", 1)[1] for part in first.split("/"))
    origin = reports[first].origin or ""
    assert f"_problem_{problem}_" in origin and f"_sample_{sample}_kernel.py" in origin, origin


def test_the_error_name_alone_decides_a_cut_message(tmp_path: Path) -> None:
    # the name beside metadata (some forks write it there) and a message cut to nothing but its position
    sample = {"sample_id": 2, "compiled": True, "correctness": False, "runtime": -1.0,
              "runtime_error_name": "triton.compiler.errors.CompilationError", "runtime_error": "at 4:8:",
              "metadata": {"hardware": "NVIDIA A100-SXM4-80GB"}}  # fmt: skip
    path = tmp_path / "eval_results.json"
    path.write_text(json.dumps({"9": [sample]}))
    (rec,) = read_inputs([str(path)])
    assert rec.text.splitlines()[0] == "triton.compiler.errors.CompilationError: at 4:8:"
    (report,) = classify_records([rec])
    assert report.diagnosis is not None and report.diagnosis.failure_mode == "compile-source-error"
    sample["runtime_error_name"] = "builtins.RuntimeError"  # the same cut message under another name is not one
    path.write_text(json.dumps({"9": [sample]}))
    (report,) = classify_records(read_inputs([str(path)]))
    assert report.diagnosis is None or report.diagnosis.failure_mode != "compile-source-error"


def test_a_build_failure_kept_as_torchs_summary_alone_is_the_sources(tmp_path: Path) -> None:
    # KernelBench keeps "Error building extension 'NAME'" and nothing of nvcc's output: compiled = false decides
    sample = {"sample_id": 0, "compiled": False, "correctness": False, "runtime": -1.0,
              "metadata": {"compilation_error_name": "RuntimeError",
                           "compilation_error": "Error building extension 'fused'"}}  # fmt: skip
    path = tmp_path / "eval_results.json"
    path.write_text(json.dumps({"4": [sample]}))
    (report,) = classify_records(read_inputs([str(path)]))
    assert report.diagnosis is not None and report.diagnosis.rule == "kernelbench-extension-build-failed"
    sample["compiled"] = True  # built, then failed at run time with that text: not this rule's case
    path.write_text(json.dumps({"4": [sample]}))
    (report,) = classify_records(read_inputs([str(path)]))
    assert report.diagnosis is None or report.diagnosis.rule != "kernelbench-extension-build-failed"


RUN_FRESH = CASES / "run-level1-fresh"


def _mismatch_sample(problem: str, **extra: object) -> dict:
    sample = json.loads((RUN_FRESH / "eval_results.json").read_text())[problem][0]
    sample["metadata"].update(extra)
    return sample


def test_a_result_carrying_its_kernel_code_gets_the_source_checks(tmp_path: Path) -> None:
    # an eval_results.json on its own, the sample's code in a kernel_code field: the run path's stride check reads it
    code = (RUN_FRESH / "level_1_problem_16_sample_0_kernel.py").read_text()
    path = tmp_path / "eval_results.json"
    path.write_text(json.dumps({"16": [_mismatch_sample("16", kernel_code=code)]}))
    (rec,) = read_inputs([str(path)])
    assert rec.code == code and "kernel_code" not in rec.text  # the code is a source, never read as a log
    (report,) = classify_records([rec])
    assert report.diagnosis is not None and report.diagnosis.rule == "kernelbench-result-stride-reused"
    assert report.evidence is not None and report.evidence.run is not None
    assert report.evidence.run.stride_reused == "stride_am" and report.evidence.run.stride_reused_line == 19
    path.write_text(json.dumps({"16": [_mismatch_sample("16")]}))  # the same result without its code
    (report,) = classify_records(read_inputs([str(path)]))
    assert report.diagnosis is not None and report.diagnosis.failure_mode == "wrong-result"


def test_a_float32_dot_is_tf32_only_on_a_gpu_that_has_it(tmp_path: Path) -> None:
    code = (RUN_FRESH / "level_1_problem_1_sample_0_kernel.py").read_text()
    path = tmp_path / "eval_results.json"

    def mode(sample: dict) -> str | None:
        path.write_text(json.dumps({"1": [sample]}))
        (report,) = classify_records(read_inputs([str(path)]))
        return report.diagnosis.failure_mode if report.diagnosis else None

    assert mode(_mismatch_sample("1", kernel_code=code)) == "wrong-accumulation-precision"  # the A100 of the run
    assert mode(_mismatch_sample("1", kernel_code=code, hardware="Tesla V100-SXM2-32GB")) == "wrong-result"
    exact = code.replace("tl.dot(a, b)", 'tl.dot(a, b, input_precision="ieee")')
    assert mode(_mismatch_sample("1", kernel_code=exact)) == "wrong-result"
    big = _mismatch_sample("1", kernel_code=code, max_difference=["38.5"])  # far beyond TF32 rounding
    assert mode(big) == "wrong-result"


@pytest.mark.parametrize("run", sorted(LABELS))
def test_naming_a_runs_results_file_pairs_its_kernels_as_the_directory_does(run: str) -> None:
    # `kdiag classify runs/NAME/eval_results.json` reads the samples with the kernels beside them (the source
    # checks need them), and not the other files of the directory
    by_dir = {r.id: r for r in read_inputs([str(CASES / run)])}
    by_file = {r.id: r for r in read_inputs([str(CASES / run / "eval_results.json")])}
    samples = {rid for rid in by_dir if rid.startswith("problem_")}
    assert set(by_file) == samples
    for rid in samples:
        assert by_file[rid].source == by_dir[rid].source, rid
    assert any(r.source for r in by_file.values())


def test_runs_below_a_named_directory_are_read_as_runs() -> None:
    # `kdiag classify runs/`: every run below it pairs its kernels; none of them is read as a log
    records = list(read_inputs([str(CASES)]))
    runs = sorted(LABELS)
    for run in runs:
        ids = {r.id.removeprefix(f"{run}/") for r in records if r.id.startswith(f"{run}/")}
        assert ids == set(LABELS[run]), run
    assert not [r for r in records if r.origin and r.origin.endswith("_kernel.py") and not r.error]


def test_a_forks_flat_result_list_is_read_as_samples_whole_or_streamed() -> None:
    path = CASES / "run-kernel-coder-level1" / "eval_results.json"
    whole = [r.id for r in read_inputs([str(path)])]
    streamed = [r.id for r in read_path(path, limit=1024)]  # past the limit: read item by item
    assert whole == streamed == [
        "problem_18/sample_4", "problem_18/sample_5", "problem_19/sample_7",
        "problem_19/sample_2", "problem_19/sample_3", "problem_39/sample_7",
    ]  # fmt: skip
    for r in read_path(path):
        assert r.error is None and "\ncorrectness: " in r.text and "hardware: NVIDIA RTX A6000" in r.text, r


ROUNDS = CASES / "rounds"


@pytest.mark.parametrize("name", sorted(yaml.safe_load((ROUNDS / "labels.yaml").read_text())))
def test_a_search_rounds_kernels_are_samples_with_their_code(name: str) -> None:
    labels = yaml.safe_load((ROUNDS / "labels.yaml").read_text())[name]
    records = list(read_inputs([str(ROUNDS / name)]))
    assert [r.id for r in records] == list(labels) and all(r.code and "@triton.jit" in r.code for r in records)
    reports = {r.id: r for r in classify_records(records)}
    for rid, label in labels.items():
        d = reports[rid].diagnosis
        assert d is not None and d.category == label["category"], rid
        assert d.failure_mode == label.get("known_miss", label["failure_mode"]), rid


#: an agentic pipeline's evaluation records (corpus/kernelbench-results/pipeline-kaimu-level1/, kept verbatim: one JSON
#: object per evaluated kernel, with ``runnable``, ``error_type`` and the build log or error in ``message``, or the
#: comparison's ``max_abs_err`` and ``tolerance`` when it ran), labelled before kdiag read them
PIPELINE = CASES / "pipeline-kaimu-level1"
PIPELINE_LABELS = {
    "20250815_133125_12_Matmul_with_diagonal_matrices_/evaluation/eval_0021.json": (
        "kernel-logic",
        "compile-source-error",
    ),
    "20250815_133125_12_Matmul_with_diagonal_matrices_/evaluation/eval_0024.json": (
        "kernel-logic",
        "compile-source-error",
    ),
    "20250815_112724_10_3D_tensor_matrix_multiplication/evaluation/eval_0001.json": ("pass", None),
}


@pytest.mark.parametrize("name", sorted(PIPELINE_LABELS))
def test_a_pipeline_evaluation_record_is_read_for_what_it_says(name: str) -> None:
    (r,) = classify_records(read_inputs([str(PIPELINE / name)]))
    category, mode = PIPELINE_LABELS[name]
    if category == "pass":
        assert r.status == "pass", (r.status, r.diagnosis)
        return
    assert r.diagnosis is not None, r.status
    assert (r.diagnosis.category, r.diagnosis.failure_mode) == (category, mode), r.diagnosis


#: result files kept without their kernels (corpus/kernelbench-results/results/), labelled before kdiag read them
RESULTS = CASES / "results"


@pytest.mark.parametrize("name", sorted(yaml.safe_load((RESULTS / "labels.yaml").read_text())))
def test_a_result_file_without_its_kernels_reaches_every_label(name: str) -> None:
    labels = dict(yaml.safe_load((RESULTS / "labels.yaml").read_text())[name])
    reports = {r.id: r for r in classify_records(read_inputs([str(RESULTS / name)]))}
    # a file whose records kdiag does not split as the labels do: the labels stay, and what kdiag reads instead (its
    # own records and answers) is checked, so that reading the file another way shows here
    as_read = labels.pop("known_miss_records", None)
    if as_read is not None:
        assert set(reports) == set(as_read) and set(reports) != set(labels)
        labels = {rid: {"known_miss": answer} for rid, answer in as_read.items()}
    assert set(reports) == set(labels)
    for rid, label in labels.items():
        want = label.get("known_miss", label)  # what kdiag answers instead, and why: the test notices a change
        r = reports[rid]
        if "status" in want:
            assert r.status == want["status"], (rid, r.status)
        else:
            assert r.diagnosis is not None and (r.diagnosis.category, r.diagnosis.failure_mode) == (
                want["category"],
                want["failure_mode"],
            ), rid


def test_a_run_summary_s_records_are_read_one_by_one_with_the_answer_as_their_code(tmp_path: Path) -> None:
    # a kernel pipeline's summary: {"task", "records": [...]}; a record's model answer in a field of its own, fenced
    summary = {
        "task": "relu",
        "samples": 2,
        "records": [
            {"sample": 0, "static_ok": True, "correct": False, "error": "CompilationError: at 1:4:\nboom"},
            {"sample": 1, "static_ok": False, "correct": False, "error": "static check failed: banned op: .matmul"},
        ],
    }
    path = tmp_path / "result.json"
    path.write_text(json.dumps(summary))
    recs = list(read_inputs([str(path)]))
    assert [r.id for r in recs] == ["result/sample_0", "result/sample_1"]
    assert recs[0].error is None and "CompilationError" in recs[0].text
    assert recs[1].error is not None and recs[1].error.startswith("not evaluated: the harness's static check")
    answer = {"error": "compile_or_runtime", "message": "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed",
              "llm_out": "Here it is:\n```ptx\n.version 7.0\n.target sm_80\n.visible .entry k()\n{\n ret;\n}\n```\n"}  # fmt: skip
    path.write_text(json.dumps(answer))
    (rec,) = read_inputs([str(path)])
    assert rec.code is not None and rec.code.startswith(".version 7.0") and "```" not in rec.code


def test_an_agent_summary_s_attempts_are_read_one_by_one_with_their_feedback(tmp_path: Path) -> None:
    # a refinement agent's task summary: its whole search's success and best code, and the harness's feedback for
    # each attempt (corpus/kernelbench-results/results/xuanfeiren-tracebench-*.json has real ones)
    summary = {
        "task_idx": 5,
        "success": False,
        "best_cuda_code": "import torch",
        "history": [
            {"attempt": 1, "score": 0.5, "feedback": "SUCCESS - Score (Speedup): 0.5x\n\nAll 1 correctness trial(s) passed!"},
            {"attempt": 2, "score": 0.0, "feedback": "CORRECTNESS FAILURE - Score: 0.0\n\nOutput mismatch: max 3.1"},
        ],
    }  # fmt: skip
    path = tmp_path / "task_5.json"
    path.write_text(json.dumps(summary))
    recs = list(read_inputs([str(path)]))
    assert [r.id for r in recs] == ["task_5/attempt_1", "task_5/attempt_2"]
    assert [r.passed for r in recs] == [True, False] and "Output mismatch" in recs[1].text
    summary["error"] = "the search stopped"  # a summary with an error of its own is one record, as before
    path.write_text(json.dumps(summary))
    assert [r.id for r in read_inputs([str(path)])] == ["task_5"]


def test_fields_that_hold_code_are_not_read_as_the_record_s_log(tmp_path: Path) -> None:
    # a regression record keeps both rounds' sources and their diff beside the verdicts; the sources' `raise` lines
    # are the kernel's code, not what its run printed
    record = {
        "task_id": "Math/exp.py",
        "after": {"exe_ok": False, "error": "boom"},
        "after_code": 'raise ValueError("Input tensor must be on GPU")',
        "unified_diff": '+    raise ValueError("Input tensor must be on GPU")',
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    (rec,) = read_inputs([str(path)])
    assert "after.error: boom" in rec.text and "must be on GPU" not in rec.text


def test_a_record_of_an_unknown_schema_is_read_for_the_fields_that_hold_output(tmp_path: Path) -> None:
    # no field kdiag knows by name, but one whose name says it holds the build's output: its text is read, the
    # record's other scalars with it; a record with no such field stays a record with nothing to read
    record = {"task": "relu", "attempt": {"build_log": 'k.cu(3): error: identifier "x" is undefined\n', "ms": 0.5}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    (rec,) = read_inputs([str(path)])
    assert rec.error is None and 'identifier "x" is undefined' in rec.text and "attempt.ms: 0.5" in rec.text
    (report,) = classify_records([rec])
    assert report.diagnosis is not None and report.diagnosis.category == "kernel-logic"
    path.write_text(json.dumps({"task": "relu", "ms": 0.5}))
    (rec,) = read_inputs([str(path)])
    assert rec.error == "record has no log, output, exit status or environment"


def test_a_search_log_is_read_one_record_per_evaluated_program(tmp_path: Path) -> None:
    # OpenEvolve's evaluator line per program; the code a search prints after a failed one is the program, not a log
    log = (
        "06:14:09 [main_controller] Initialized discovery process\n"
        "06:14:18 [evaluator] Evaluated program p1 in 8.59s: combined_score=88.8556, pass_rate=1.0000\n"
        "06:15:27 [evaluator] Evaluated program p2 in 0.40s: combined_score=0.0000, pass_rate=0.0000, "
        "error=Traceback (most recent call last): NameError: name 'tl' is not defined\n"
        "----- Generated Solution -----\nimport torch\nraise RuntimeError('CUDA error: out of memory')\n"
        "--------------------------\n"
        "06:16:06 [evaluator] Evaluated program s1 in 0.00s: validity=1.0000, combined_score=0.0000\n"
        "06:17:00 [evaluator] Evaluated program p1 in 8.10s: combined_score=88.9, pass_rate=1.0000\n"
    )
    path = tmp_path / "run.log"
    path.write_text(log)
    recs = {r.id: r for r in read_inputs([str(path)])}
    assert list(recs) == ["run.log/p1", "run.log/p2", "run.log/s1", "run.log/p1#2"]
    assert recs["run.log/p1"].passed and recs["run.log/p1#2"].passed and not recs["run.log/p2"].passed
    assert recs["run.log/p2"].code is not None and "out of memory" not in recs["run.log/p2"].text
    assert recs["run.log/s1"].error is not None and "no correctness figure" in recs["run.log/s1"].error
    reports = {r.id: r for r in classify_records(recs.values())}
    assert reports["run.log/p1"].status == "pass"
    assert reports["run.log/p2"].diagnosis is not None and reports["run.log/p2"].diagnosis.category == "kernel-logic"


def _one(tmp_path: Path, obj: object, name: str = "r.json"):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return list(classify_records(read_inputs([str(path)])))


def test_flashinfer_bench_s_status_is_the_record_s_verdict(tmp_path: Path) -> None:
    # flashinfer-bench's Trace: the evaluation's EvaluationStatus decides (flashinfer_bench/data/trace.py); its
    # correctness figures are read beside a wrong result; corpus/kernelbench-results/results/ holds real records
    def trace(status: str, **evaluation: object) -> dict:
        return {"definition": "moe", "workload": {"uuid": "w1"}, "solution": "s",
                "evaluation": {"status": status, "environment": {"hardware": "B200"}, "timestamp": "t", **evaluation}}  # fmt: skip

    (passed,) = _one(tmp_path, trace("PASSED", correctness={"max_absolute_error": 0.0}))
    assert passed.status == "pass"
    (wrong,) = _one(tmp_path, trace("INCORRECT_NUMERICAL", correctness={"max_absolute_error": 520192.0}))
    assert wrong.diagnosis is not None and (wrong.diagnosis.category, wrong.diagnosis.failure_mode) == (
        "kernel-logic",
        "wrong-result",
    )
    assert wrong.evidence.numerics is not None and wrong.evidence.numerics.max_abs == 520192.0
    (shape,) = _one(tmp_path, trace("INCORRECT_SHAPE"))
    assert shape.evidence.numerics is not None and shape.evidence.numerics.shape_mismatch
    # a harness that keeps the status beside its own error message: the message is read with it
    (crash,) = _one(
        tmp_path, {"status": "RUNTIME_ERROR", "error": "CUDA error: an illegal memory access was encountered"}
    )
    assert crash.evidence is not None and crash.evidence.cuda is not None, crash.evidence
    # a sweep's records keyed by variant, definition and workload are read one by one
    sweep = {"tc": {"moe": {"w1": {"status": "INCORRECT_NUMERICAL", "max_abs_error": 5.0, "max_rel_error": 1.0}}},
             "legacy": {"moe": {"w1": {"status": "PASSED", "max_abs_error": 256.0}}}}  # fmt: skip
    got = {r.id: r.status for r in _one(tmp_path, sweep)}
    assert got == {"tc/moe/w1": "diagnosed", "legacy/moe/w1": "pass"}


def test_a_count_of_flashinfer_bench_statuses_is_no_mismatch(tmp_path: Path) -> None:
    from diagnose.collectors import collect

    assert collect("status counts: PASSED: 19, INCORRECT_NUMERICAL: 0\n").numerics is None
    assert collect('{"INCORRECT_NUMERICAL": 0, "PASSED": 23}\n').numerics is None
    assert collect("Validation failed: INCORRECT_NUMERICAL: \n").numerics.mismatch


def test_a_passing_status_needs_its_own_check_to_say_so(tmp_path: Path) -> None:
    # an evaluator's report: "status": "success" with its correctness check passed is a pass; the same status
    # beside a check that failed is not
    ok = {
        "status": "success",
        "score": 1.3,
        "metrics": {"correctness": 1.0},
        "artifacts": {"correctness_check": "Passed"},
    }
    (r,) = _one(tmp_path, ok)
    assert r.status == "pass"
    bad = {"status": "success", "metrics": {"correctness": 0.0}}
    (r,) = _one(tmp_path, bad)
    assert r.status != "pass"


def test_an_evaluation_kept_as_a_json_string_is_read(tmp_path: Path) -> None:
    # an agent's history keeps each candidate's evaluator answer as a JSON string; rounds of candidates in a list
    inner = {"status": "validation_failed", "summary": "Validation failed: INCORRECT_NUMERICAL: ", "score": 0.0,
             "artifacts": {"error": "INCORRECT_NUMERICAL: "}}  # fmt: skip
    history = [{"round": 2, "candidates": [{"random_idx": "_a", "score": 0.0, "reason": json.dumps(inner, indent=2)},
                                           {"random_idx": "_b", "score": 2.1, "reason": json.dumps(
                                               {"status": "success", "artifacts": {"correctness_check": "Passed"}})}]}]  # fmt: skip
    got = {
        r.id: (r.status, r.diagnosis.failure_mode if r.diagnosis else None) for r in _one(tmp_path, history, "h.json")
    }
    assert got == {"h[0][candidates][0]": ("diagnosed", "wrong-result"), "h[0][candidates][1]": ("pass", None)}
