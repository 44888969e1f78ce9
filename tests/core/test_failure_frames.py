"""A Python frame line is a failure sign (a pasted traceback may keep only its frames), except in a report of
TorchDynamo's explain(), which lists each graph break's frames under "Break reasons:" and fails nothing (a blind set
of real healthy outputs, corpus/healthy/public8.yaml, pytorch/torchdynamo#895)."""

from __future__ import annotations

from diagnose.failure_lines import failure_lines

EXPLAIN = """Dynamo produced 3 graphs, with 2 graph break and 6 ops.
 Break reasons:

1. call_function BuiltinVariable(print) [ConstantVariable(str)] {}
   File "t2.py", line 16, in toy_example
    print("woo")
"""
FRAMES_ONLY = """  File "/venv/lib/python3.11/site-packages/jax/_src/pallas/triton/lowering.py", line 1093, in _div_lowering_rule
    return _floordiv(x, y)
"""


def test_an_explain_report_s_frames_are_no_failure() -> None:
    assert failure_lines(EXPLAIN) == []


def test_frames_of_a_cut_traceback_still_are() -> None:
    assert [n for n, _ in failure_lines(FRAMES_ONLY)] == [1]


def test_an_explain_report_beside_a_traceback_keeps_its_frames() -> None:
    assert failure_lines(EXPLAIN + "Traceback (most recent call last):\n" + FRAMES_ONLY) != []
