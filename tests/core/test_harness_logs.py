"""Batch logs of many programs (TritonBench's evaluation output): one record per program, in order, and nothing
else split (diagnose.harness_logs, diagnose.inputs.text_records)."""

from __future__ import annotations

from pathlib import Path

from diagnose.classify import classify_records
from diagnose.inputs import read_inputs

# the layout TritonBench's EVAL/eval_T/0_call_acc.py prints (a header line before each module's stdout and stderr)
TRACEBACK = "Traceback (most recent call last):\n  File \"m.py\", line 3, in <module>\nNameError: name 'Optional' is not defined\n"


def _section(name: str, out: str = "", err: str = "", gpu: int = 0) -> str:
    return f"=== Output for {name} on GPU {gpu} ===\n{out}\n=== Errors for {name} on GPU {gpu} ===\n{err}\n"


def test_each_module_is_a_record_of_its_own(tmp_path: Path) -> None:
    log = (
        "generating 3 predictions\n"
        + _section("a.py", err=TRACEBACK)
        + _section("b.py", out="ok")
        + _section("c.py", err="RuntimeError: CUDA error: an illegal memory access was encountered\n", gpu=1)
    )
    log += "Deleted a.py\nDeleted c.py\n\nCorrect execution rate: 33.33%\n['b.py']\n"
    path = tmp_path / "run.log"
    path.write_text(log)
    recs = list(read_inputs([str(path)]))
    assert [r.id for r in recs] == ["run.log/a.py", "run.log/b.py", "run.log/c.py"]
    assert "NameError" in recs[0].text and "generating" not in recs[0].text  # the banner is no module's
    assert "Correct execution rate" not in recs[2].text and "Deleted" not in recs[2].text  # nor the summary
    reports = list(classify_records(recs))
    assert reports[0].diagnosis is not None and reports[0].diagnosis.category == "kernel-logic"
    assert reports[1].status == "no-failure"


def test_a_module_named_again_in_a_second_run_is_another_record(tmp_path: Path) -> None:
    path = tmp_path / "two.log"
    path.write_text(_section("a.py", err=TRACEBACK) + "Above is call test for x\n" + _section("a.py", out="ok"))
    assert [r.id for r in read_inputs([str(path)])] == ["two.log/a.py", "two.log/a.py#2"]


def test_look_alike_headers_leave_a_log_whole(tmp_path: Path) -> None:
    path = tmp_path / "plain.log"
    path.write_text("=== Output for step 3 ===\nloss 0.1\n=== Errors for step 3 ===\n" + TRACEBACK)
    (rec,) = read_inputs([str(path)])
    assert rec.id == "plain.log" and "NameError" in rec.text


def test_many_sections_read_in_one_pass(tmp_path: Path) -> None:
    path = tmp_path / "big.log"
    path.write_text("".join(_section(f"m{i}.py", err=TRACEBACK if i % 2 else "") for i in range(4000)))
    recs = list(read_inputs([str(path)]))
    assert len(recs) == 4000 and recs[-1].id == "big.log/m3999.py" and "NameError" in recs[-1].text
